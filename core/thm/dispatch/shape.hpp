#pragma once
/// \file
/// Internal: the rules on a chain's shape (SPEC §3.2 steps 7 to 9), shared by
/// `mention_dispatch` and the briefing's dispatch sentence (SPEC §7).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "thm/dispatch/types.hpp"
#include "thm/trace/note.hpp"

namespace thm::detail {

/// The first shape rule the policy turns on that refuses a reply by `author`, after the
/// replies of `chain`, starting a turn for `target`; nothing when every rule that is on
/// holds. Each rule that is on notes one step (subject: the target); a rule that is off
/// notes none. Reads only the policy, the chain and the two ids: never the roster.
template <class Note>
std::optional<NoDispatchReason> shape_refusal(const MentionDispatchPolicy& policy,
                                              std::span<const std::string> chain,
                                              std::string_view author, std::string_view target,
                                              const Note& note) {
  const auto noted = [&](TraceRule rule, bool held, std::optional<std::uint64_t> count = {}) {
    note([&] {
      return TraceStep{.rule = rule,
                       .outcome = held ? TraceOutcome::Passed : TraceOutcome::Stopped,
                       .subject = std::string(target),
                       .count = count};
    });
    return held;
  };
  if (policy.no_return) {
    const bool returns = !chain.empty() && chain.back() == target;
    if (!noted(TraceRule::NoReturn, !returns)) return NoDispatchReason::ImmediateReturn;
  }
  if (policy.max_turns_per_agent) {
    const auto turns = static_cast<std::uint64_t>(std::ranges::count(chain, target));
    if (!noted(TraceRule::AgentTurns, turns < *policy.max_turns_per_agent, turns)) {
      return NoDispatchReason::AgentTurnsSpent;
    }
  }
  if (policy.allowed_handoffs) {
    const bool allowed = std::ranges::any_of(*policy.allowed_handoffs, [&](const Handoff& pair) {
      return pair.source_id == author && pair.target_id == target;
    });
    if (!noted(TraceRule::Handoff, allowed)) return NoDispatchReason::HandoffNotAllowed;
  }
  return std::nullopt;
}

}  // namespace thm::detail
