#pragma once
/// \file
/// Mention-dispatch value types (SPEC §3.1) and the wording of their refusals (SPEC §5).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "thm/chat/chat.hpp"
#include "thm/detail/enum_names.hpp"
#include "thm/detail/unreachable.hpp"
#include "thm/mentions/types.hpp"

namespace thm {

/// One hand-off a host allows (SPEC §3.1): a reply by `source_id` may start a turn for
/// `target_id`.
struct Handoff {
  std::string source_id{};
  std::string target_id{};
  friend bool operator==(const Handoff&, const Handoff&) = default;
};

/// The host's dispatch policy, supplied on every call (SPEC §3.1). `max_hops` is the number
/// of child turns a chain may start; 0 disables dispatch; any u32 is valid (no library cap).
/// The shape of a chain (SPEC §3.2 steps 7 to 9), each rule off by default:
///  - `no_return`: a reply may not start a turn for the author of the previous reply;
///  - `max_turns_per_agent`: an agent takes at most this many turns of one chain, the
///    root's included;
///  - `allowed_handoffs`: when present, a reply starts a turn only along a listed pair.
/// Every field is unauthenticated caller input (SPEC §3.5): hosts with untrusted
/// participants derive the policy, and `hop` and `chain`, from their own stored rows.
struct MentionDispatchPolicy {
  bool enabled = false;
  std::uint32_t max_hops = 0;
  bool no_return = false;
  std::optional<std::uint32_t> max_turns_per_agent{};
  std::optional<std::vector<Handoff>> allowed_handoffs{};

  /// True when a rule on the chain's shape is on (any of the last three fields).
  [[nodiscard]] bool shapes_chains() const noexcept {
    return no_return || max_turns_per_agent.has_value() || allowed_handoffs.has_value();
  }
  friend bool operator==(const MentionDispatchPolicy&, const MentionDispatchPolicy&) = default;
};

/// The host sequence of the committed reply that may trigger a child turn (SPEC §3.1).
/// With the `DispatchConversation` it forms the idempotency scope (SPEC §3.3).
struct DispatchKey {
  Sequence trigger_sequence = 0;
  friend bool operator==(const DispatchKey&, const DispatchKey&) = default;
};

/// One committed agent reply, as `mention_dispatch` reads it (SPEC §3.1). `mentions` are the
/// reply's own resolved mentions, used as given; `hop` is the reply's depth in its chain
/// (0 for a reply to a person); `chain` is the authors of the chain's earlier replies, root
/// first (`hop` entries), read only by the shape rules. Both are unauthenticated (SPEC §3.5).
struct MentionDispatchInput {
  DispatchKey key{};
  DispatchConversation conversation{};
  std::string author_id{};
  std::string content{};
  std::vector<Mention> mentions{};
  std::uint32_t hop = 0;
  std::vector<std::string> chain{};
  friend bool operator==(const MentionDispatchInput&, const MentionDispatchInput&) = default;
};

/// The one child turn a reply may start (SPEC §3.1): who asked (`source_id`), who answers
/// (`target_id`), the reply's content and scope verbatim, and `child_hop = hop + 1`.
struct MentionTurnRequest {
  DispatchKey key{};
  std::string source_id{};
  std::string target_id{};
  std::string content{};
  DispatchConversation conversation{};
  std::uint32_t child_hop = 0;
  friend bool operator==(const MentionTurnRequest&, const MentionTurnRequest&) = default;
};

/// Why a reply starts no child turn (SPEC §3.1). A refusal is a decision, never an error.
enum class NoDispatchReason : std::uint8_t {
  Disabled,
  HopLimitReached,
  SourceInactive,
  NoDirectAgentMention,
  SelfMention,
  TargetInactive,
  HopOverflow,
  ImmediateReturn,
  AgentTurnsSpent,
  HandoffNotAllowed,
};

/// Every `NoDispatchReason`, in declaration order.
inline constexpr std::array kAllNoDispatchReasons{
    NoDispatchReason::Disabled,        NoDispatchReason::HopLimitReached,
    NoDispatchReason::SourceInactive,  NoDispatchReason::NoDirectAgentMention,
    NoDispatchReason::SelfMention,     NoDispatchReason::TargetInactive,
    NoDispatchReason::HopOverflow,     NoDispatchReason::ImmediateReturn,
    NoDispatchReason::AgentTurnsSpent, NoDispatchReason::HandoffNotAllowed,
};

/// `mention_dispatch` declined (SPEC §3.1 `None{reason}`).
struct NoDispatch {
  NoDispatchReason reason{};
  friend bool operator==(const NoDispatch&, const NoDispatch&) = default;
};
/// `mention_dispatch` admitted exactly one child turn (SPEC §3.1 `One{request}`).
struct DispatchOne {
  MentionTurnRequest request{};
  friend bool operator==(const DispatchOne&, const DispatchOne&) = default;
};
/// The decision of `mention_dispatch` (SPEC §3.1): no child turn, or exactly one.
/// Wire: tagged by `kind` (`none`, `one`).
using MentionDispatchDecision = std::variant<NoDispatch, DispatchOne>;

/// The policy, hop and chain of the run an agent is in (SPEC §7). Wire: `policy` and `hop`
/// required, so a missing `hop` never defaults to the permissive 0; `chain` as in
/// `MentionDispatchInput`.
struct MentionDispatchContext {
  MentionDispatchPolicy policy{};
  std::uint32_t hop = 0;
  std::vector<std::string> chain{};

  /// True exactly when `mention_dispatch` would get past its first two guards:
  /// `policy.enabled && hop < policy.max_hops` (SPEC §7).
  [[nodiscard]] constexpr bool may_dispatch() const noexcept {
    return policy.enabled && hop < policy.max_hops;
  }
  friend bool operator==(const MentionDispatchContext&, const MentionDispatchContext&) = default;
};

// ---- Wording (SPEC §5) ------------------------------------------------------------------

/// The one sentence every refusal renders when what it turns on is whether a named other
/// agent exists, is active or is reachable (SPEC §5): it discloses nothing about others.
inline constexpr std::string_view kNoAvailableTarget =
    "no teammate could be handed this turn from here";

/// The sentence of `Disabled`, reused verbatim by `EnqueueRefusal::FeatureDisabled`.
inline constexpr std::string_view kDispatchDisabledSentence =
    "handing a turn to a teammate is switched off in this conversation";
/// The sentence of `HopLimitReached`, reused verbatim by `HopOverflow`.
inline constexpr std::string_view kHopBudgetSpentSentence =
    "this chain of handoffs has used up its hop budget";

/// The stable snake_case wire token of `reason`, e.g. `hop_limit_reached`.
[[nodiscard]] constexpr std::string_view name(NoDispatchReason reason) noexcept {
  switch (reason) {
    case NoDispatchReason::Disabled:
      return "disabled";
    case NoDispatchReason::HopLimitReached:
      return "hop_limit_reached";
    case NoDispatchReason::SourceInactive:
      return "source_inactive";
    case NoDispatchReason::NoDirectAgentMention:
      return "no_direct_agent_mention";
    case NoDispatchReason::SelfMention:
      return "self_mention";
    case NoDispatchReason::TargetInactive:
      return "target_inactive";
    case NoDispatchReason::HopOverflow:
      return "hop_overflow";
    case NoDispatchReason::ImmediateReturn:
      return "immediate_return";
    case NoDispatchReason::AgentTurnsSpent:
      return "agent_turns_spent";
    case NoDispatchReason::HandoffNotAllowed:
      return "handoff_not_allowed";
  }
  detail::unreachable();
}

/// The reason whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<NoDispatchReason> no_dispatch_reason_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllNoDispatchReasons);
}

/// The sentence an acting model may repeat to a person (SPEC §5 disclosure rule): own
/// sentences only for what the caller already holds (its policy, its hop, its chain, its
/// identity, the mention it wrote); the shared `kNoAvailableTarget` for anything that turns
/// on whether another agent exists, is active or may be handed a turn.
[[nodiscard]] constexpr std::string_view to_string(NoDispatchReason reason) noexcept {
  switch (reason) {
    case NoDispatchReason::Disabled:
      return kDispatchDisabledSentence;
    case NoDispatchReason::HopLimitReached:
      return kHopBudgetSpentSentence;
    case NoDispatchReason::HopOverflow:
      return kHopBudgetSpentSentence;
    case NoDispatchReason::SourceInactive:
      return "you are not an active member of this team, so you cannot hand off a turn";
    case NoDispatchReason::SelfMention:
      return "you cannot hand a turn to yourself";
    case NoDispatchReason::NoDirectAgentMention:
      return kNoAvailableTarget;
    case NoDispatchReason::TargetInactive:
      return kNoAvailableTarget;
    case NoDispatchReason::ImmediateReturn:
      return "you cannot hand the turn straight back to the teammate who handed it to you";
    case NoDispatchReason::AgentTurnsSpent:
      return "that teammate has taken all the turns it may take in this chain";
    case NoDispatchReason::HandoffNotAllowed:
      return kNoAvailableTarget;
  }
  detail::unreachable();
}

}  // namespace thm
