#include "thm/cli/explain.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

namespace thm::cli {

Result<json::Value, std::string> explain_op(std::string_view op, const json::Value& input,
                                            std::optional<json::DecodeError> refused,
                                            Implementation impl) {
  if (std::ranges::find(kExplainedOps, op) == kExplainedOps.end()) {
    std::string known;
    for (const std::string_view name : kExplainedOps) {
      known += (known.empty() ? "" : ", ") + std::string(name);
    }
    return unexpected{"op \"" + std::string(op) + "\" has no trace; thm explain answers " + known};
  }
  auto result = run_op(op, input, std::move(refused), impl, nullptr, /*explain=*/true);
  if (!result.has_value()) return result;
  json::Value& out = *result;
  if (!out.contains("trace")) out["trace"] = json::Value::array();  // refused at decoding

  DecisionTrace trace;
  for (std::size_t i = 0; i < out["trace"].size(); ++i) {
    auto step = json::from_value<TraceStep>(out["trace"][i], "/trace/" + std::to_string(i));
    if (!step.has_value()) {
      return unexpected{"the trace is malformed at " + step.error().path + ": " +
                        step.error().reason};
    }
    trace.push_back(*std::move(step));
  }
  json::Value lines = json::Value::array();
  for (const TraceStep& step : trace) lines.push_back(to_string(step));
  json::Value sentences = json::Value::array();
  for (const std::string_view sentence : agent_sentences(trace)) sentences.push_back(sentence);
  out["operator"] = std::move(lines);
  out["agent"] = std::move(sentences);
  return out;
}

namespace {

// A value as the summary shows it: a string as it is, unless a control character or a
// backslash in it would forge a line or steer a terminal; then, and for anything else, as JSON.
std::string text_of(const json::Value& value) {
  if (!value.is_string()) return value.dump();
  const auto& text = value.get_ref<const std::string&>();
  const bool plain = std::ranges::none_of(text, [](char c) {
    return c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == '\x7f';
  });
  return plain ? text : value.dump(-1, ' ', false, json::Value::error_handler_t::replace);
}

// A decision in a few words: who answers and by which rung, or the refusal, or the error.
std::string summary(const json::Value& result) {
  if (result.contains("error")) {
    const json::Value& error = result.at("error");
    std::string out = "error " + text_of(error.at("variant"));
    if (error.contains("path")) out += " at " + text_of(error.at("path"));
    if (error.contains("reason")) out += ": " + text_of(error.at("reason"));
    if (error.contains("message")) out += ": " + text_of(error.at("message"));
    return out;
  }
  const auto decided = [](const json::Value& decision) {
    std::string out =
        text_of(decision.at("responder_id")) + " answers (" + text_of(decision.at("rung"));
    if (decision.at("disposition") != "not_applicable") {
      out += ", " + text_of(decision.at("disposition"));
    }
    return out + ")";
  };
  if (result.contains("plan")) {
    const json::Value& plan = result.at("plan");
    if (plan.at("kind") == "decided") return decided(plan.at("decision"));
    std::string candidates;
    for (const json::Value& candidate : plan.at("request").at("candidates")) {
      candidates += (candidates.empty() ? "" : ", ") + text_of(candidate.at("id"));
    }
    return "a selector picks among " + candidates + "; " +
           text_of(plan.at("fallback").at("responder_id")) + " if it cannot";
  }
  const json::Value& decision = result.at("decision");
  if (decision.contains("responder_id")) return decided(decision);
  if (decision.at("kind") == "none")
    return "no child turn (" + text_of(decision.at("reason")) + ")";
  const json::Value& request = decision.at("request");
  return "one child turn for " + text_of(request.at("target_id")) + " at hop " +
         text_of(request.at("child_hop"));
}

}  // namespace

std::string explanation_text(std::string_view op, const json::Value& explained) {
  std::string out = std::string(op) + ": " + summary(explained) + "\n";
  const json::Value& lines = explained.at("operator");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += "  " + std::to_string(i + 1) + ". " + lines[i].get<std::string>() + "\n";
  }
  out += "for the agent:";
  const json::Value& sentences = explained.at("agent");
  if (sentences.empty()) out += " (nothing: the host handles an error)";
  out += "\n";
  for (const json::Value& sentence : sentences) out += "  " + sentence.get<std::string>() + "\n";
  return out;
}

}  // namespace thm::cli
