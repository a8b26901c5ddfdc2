// The recorded histories as JSON in Jepsen's shape (queue-conformance.md §9): each call an
// invocation and a completion, with a process, an `f`, a `value` and a time in nanoseconds.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "thm/conformance/report.hpp"
#include "thm/conformance/report_common.hpp"

namespace thm::conformance {

namespace {

using Json = nlohmann::ordered_json;
using detail::shown_bytes;

// What a call was asked: its key, token and duration, where it has them.
Json arguments(const HistoryEvent& e) {
  Json value = Json::object();
  const Operation* op = e.operation ? &*e.operation : nullptr;
  if (op && !op->key.empty() && op->kind != Operation::Kind::Claim)
    value["key"] = shown_bytes(op->key);
  if (op && !op->token.empty() && op->kind != Operation::Kind::Claim) {
    value["token"] = shown_bytes(op->token);
  }
  if (op && (op->kind == Operation::Kind::Claim || op->kind == Operation::Kind::Renew)) {
    value["duration_ms"] = op->duration_ms;
  }
  if (!e.subject.empty()) value["subject"] = e.subject;
  return value;
}

// What it answered, typed as the checker read it.
Json answer(const HistoryEvent& e) {
  Json value = Json::object();
  if (e.store_time_ms) {
    value["store_time_ms"] = *e.store_time_ms;
    return value;
  }
  if (!e.operation) {
    if (!e.answer.empty()) value["answer"] = e.answer;
    return value;
  }
  const Operation& op = *e.operation;
  value["answer"] = name(op.answer);
  if (op.answer == Operation::Answer::Leased) {
    value["key"] = shown_bytes(op.key);
    value["token"] = shown_bytes(op.token);
    value["attempt"] = op.attempt;
  }
  if (op.answer == Operation::Answer::Leased || op.answer == Operation::Answer::Renewed) {
    value["expires_ms"] = op.expires_ms;
  }
  if (op.kind == Operation::Kind::Fail && op.answer == Operation::Answer::Settled) {
    value["back_to_queue"] = op.back_to_queue;
  }
  value["said"] = e.answer;
  return value;
}

// The completion's type: `ok` for an answer, `info` for an unknown outcome (and the host's
// own events, Jepsen's nemesis), `fail` for a call that did not happen.
const char* completion_of(const HistoryEvent& e) {
  if (e.kind != HistoryEvent::Kind::Call) return "info";
  if (!e.operation) return "fail";
  return e.operation->answer == Operation::Answer::Unknown ? "info" : "ok";
}

Json entries(const std::vector<HistoryEvent>& history) {
  struct Entry {
    std::uint64_t time_us;
    bool completion;
    std::size_t event;
  };
  std::vector<Entry> order;
  for (std::size_t i = 0; i < history.size(); ++i) {
    order.push_back({history[i].start_us, false, i});
    order.push_back({history[i].end_us, true, i});
  }
  std::ranges::stable_sort(order, [](const Entry& a, const Entry& b) {
    return std::tie(a.time_us, a.completion) < std::tie(b.time_us, b.completion);
  });
  Json out = Json::array();
  for (const Entry& entry : order) {
    const HistoryEvent& e = history[entry.event];
    const bool session = e.kind == HistoryEvent::Kind::Call;
    const std::string f = e.operation && session ? std::string(name(e.operation->kind)) : e.what;
    Json item{{"index", out.size()},
              {"type", entry.completion ? completion_of(e) : (session ? "invoke" : "info")},
              {"process", session && e.lane ? Json(*e.lane) : Json("nemesis")},
              {"f", f},
              {"value", entry.completion ? answer(e) : arguments(e)},
              {"time", entry.time_us * 1000}};
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

std::string to_history(const RunDescription& run, std::span<const CheckResult> checks) {
  Json out{{"tool", run.tool},
           {"harness", run.harness},
           {"queue", run.queue},
           {"checks", Json::array()}};
  for (const CheckResult& check : checks) {
    Json runs = Json::array();
    for (const CheckRun& each : check.runs) {
      runs.push_back({{"seed", each.seed},
                      {"result", name(each.verdict)},
                      {"history_dropped", each.history_dropped},
                      {"history", entries(each.history)}});
    }
    out["checks"].push_back({{"id", check.total.id}, {"runs", std::move(runs)}});
  }
  return out.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace thm::conformance
