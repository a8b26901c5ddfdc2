// mention_dispatch and dispatch_mention on structured inputs. An input that starts with `{`
// is a case file's `input` object (`policy`, `input`, `roster` in their wire forms), so the
// seeds are the shipped cases; any other input is drawn with `Draw`.
// Invariants: core agrees with the model (decision or error); an admitted request carries
// the reply's key, content, conversation and author verbatim, names an agent the reply
// mentions other than its author, and has child_hop = hop + 1 within max_hops;
// an admitted request keeps to every shape rule that is on (never straight back, within the
// per-agent budget, along an allowed hand-off); dispatch_mention calls the queue exactly
// once for an admitted request and never otherwise.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <variant>

#include "case_input.hpp"
#include "draw.hpp"
#include "fuzz_check.hpp"
#include "thm/bridge/bridge.hpp"

namespace {

struct DispatchCase {
  thm::MentionDispatchPolicy policy;
  thm::MentionDispatchInput input;
  thm::RosterSnapshot roster;
};

std::optional<DispatchCase> from_case_input(std::string_view text) {
  const auto input = thm::json::parse(text);
  if (!input) return std::nullopt;
  auto policy = thm::fuzz::case_member<thm::MentionDispatchPolicy>(*input, "policy");
  auto reply = thm::fuzz::case_member<thm::MentionDispatchInput>(*input, "input");
  auto roster = thm::fuzz::case_member<thm::RosterSnapshot>(*input, "roster");
  if (!policy || !reply || !roster) return std::nullopt;
  return DispatchCase{*policy, *std::move(reply), *std::move(roster)};
}

DispatchCase drawn(FuzzedDataProvider& bytes) {
  thm::fuzz::Draw draw(bytes);
  DispatchCase c;
  c.policy = {.enabled = draw.count(7) != 0, .max_hops = draw.hop()};
  c.roster = draw.roster();
  c.input.key.trigger_sequence = bytes.ConsumeIntegral<thm::Sequence>();
  c.input.conversation = {.desk_id = draw.name(),
                          .thread_root = draw.coin()
                                             ? std::optional(bytes.ConsumeIntegral<thm::Sequence>())
                                             : std::nullopt};
  c.input.author_id = draw.name();
  c.input.hop = draw.hop();
  c.input.mentions = draw.mentions();
  c.policy.no_return = draw.coin();
  if (draw.coin()) c.policy.max_turns_per_agent = static_cast<std::uint32_t>(draw.count(3));
  if (draw.coin()) {
    c.policy.allowed_handoffs.emplace(draw.count(4));
    for (auto& pair : *c.policy.allowed_handoffs) pair = {draw.name(), draw.name()};
  }
  c.input.chain = draw.names(4);
  c.input.content = draw.rest();
  return c;
}

bool mentions_agent(const thm::MentionDispatchInput& input, const std::string& id) {
  for (const auto& m : input.mentions) {
    const auto* agent = std::get_if<thm::AgentTarget>(&m.target);
    if (agent != nullptr && agent->id == id && !m.quiet) return true;
  }
  return false;
}

void check(const DispatchCase& c) {
  const thm::Roster roster(c.roster);
  // The prepared path first (adr/0016); a roster no team holds runs on the view.
  const auto team = thm::Team::prepare(c.roster, {});
  const auto on_view = thm::mention_dispatch(c.policy, c.input, roster);
  const auto core = team ? thm::mention_dispatch(c.policy, c.input, *team) : on_view;
  THM_FUZZ_CHECK(core == on_view);
  std::vector<thm::model::Step> model_trace;
  const auto model =
      thm::model::mention_dispatch(thm::bridge::to_model(c.policy), thm::bridge::to_model(c.input),
                                   thm::bridge::to_model(c.roster), &model_trace);
  // SPEC §8: the traced call decides alike and takes the model's steps.
  thm::DecisionTrace trace;
  THM_FUZZ_CHECK(thm::mention_dispatch(c.policy, c.input, roster, trace) == on_view);
  THM_FUZZ_CHECK(thm::bridge::to_model(trace) == model_trace);
  THM_FUZZ_CHECK(core.has_value() == model.value.has_value());
  if (!core) {
    THM_FUZZ_CHECK(thm::bridge::to_model_error(core.error()) == *model.error);
  } else {
    THM_FUZZ_CHECK(*core == thm::bridge::to_core(*model.value));
  }

  const auto* one = core ? std::get_if<thm::DispatchOne>(&*core) : nullptr;
  if (one != nullptr) {
    const thm::MentionTurnRequest& request = one->request;
    THM_FUZZ_CHECK(c.policy.enabled && c.input.hop < c.policy.max_hops);
    THM_FUZZ_CHECK(request.child_hop == c.input.hop + 1);
    THM_FUZZ_CHECK(request.key == c.input.key && request.content == c.input.content);
    THM_FUZZ_CHECK(request.conversation == c.input.conversation &&
                   request.source_id == c.input.author_id);
    THM_FUZZ_CHECK(request.target_id != request.source_id &&
                   mentions_agent(c.input, request.target_id));
    const auto& chain = c.input.chain;
    THM_FUZZ_CHECK(!c.policy.no_return || chain.empty() || chain.back() != request.target_id);
    THM_FUZZ_CHECK(
        !c.policy.max_turns_per_agent ||
        static_cast<std::uint64_t>(std::count(chain.begin(), chain.end(), request.target_id)) <
            *c.policy.max_turns_per_agent);
    const thm::Handoff pair{request.source_id, request.target_id};
    THM_FUZZ_CHECK(!c.policy.allowed_handoffs ||
                   std::find(c.policy.allowed_handoffs->begin(), c.policy.allowed_handoffs->end(),
                             pair) != c.policy.allowed_handoffs->end());
  }

  thm::bridge::ScriptedQueue queue(thm::EnqueueOutcome{thm::Enqueued{}});
  const auto outcome = team ? thm::dispatch_mention(queue, c.policy, c.input, *team)
                            : thm::dispatch_mention(queue, c.policy, c.input, roster);
  THM_FUZZ_CHECK(queue.calls() == (one != nullptr ? 1 : 0));
  THM_FUZZ_CHECK(outcome.has_value() == core.has_value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return thm::fuzz::run_structured(data, size, from_case_input, drawn, check);
}
