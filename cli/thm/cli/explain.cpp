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

std::string explanation_text(std::string_view op, const json::Value& explained) {
  json::Value result = explained;
  for (const char* key : {"trace", "operator", "agent"}) result.erase(key);
  std::string out = std::string(op) + ": " + result.dump() + "\n";
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
