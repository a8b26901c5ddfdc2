#pragma once
/// \file
/// `thm::json`: the JSON wire forms of SPEC §6 over nlohmann_json. Core never sees this
/// header. Decoding follows SPEC §0.5 and §0.8: a missing required key, a wrong type, a
/// negative, fractional (`2.0`, `1e3`) or out-of-range integer, an unknown enum token, or a
/// key repeated within one object is a `DecodeError` naming the JSON Pointer path of the
/// offending value. Unknown keys are ignored; `null` is never the same as absent; u64
/// values round-trip exactly. Nothing here throws through the API.

#include <concepts>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "thm/core.hpp"

namespace thm::json {

/// A JSON tree that keeps object keys in insertion order, so that encodings match the
/// SPEC §6 examples byte for byte.
using Value = nlohmann::ordered_json;

/// Why a document was refused (SPEC §0.5): `path` is a JSON Pointer (RFC 6901) to the
/// offending value, prefixed by the caller's root (e.g. `/input/policy/max_hops`); for a
/// missing key it points where the key should be. `reason` is a lower-case sentence.
struct DecodeError {
  std::string path{};
  std::string reason{};
  friend bool operator==(const DecodeError&, const DecodeError&) = default;
};

/// Every type with a wire form in SPEC §6, plus the case files' roster and desk snapshots
/// and the selector result of `settle_selection` (cases.md).
template <class T>
concept WireType =
    std::same_as<T, MentionTarget> || std::same_as<T, MentionAuthor> ||
    std::same_as<T, Mention> || std::same_as<T, RosterMember> || std::same_as<T, Person> ||
    std::same_as<T, RosterSnapshot> || std::same_as<T, ResponderMode> ||
    std::same_as<T, Desk> || std::same_as<T, DeskMember> || std::same_as<T, DeskOrder> ||
    std::same_as<T, DeskSnapshot> || std::same_as<T, SelectorCandidate> ||
    std::same_as<T, SelectionPolicy> || std::same_as<T, ResponderRequest> ||
    std::same_as<T, SelectionRequest> || std::same_as<T, ResponderRung> ||
    std::same_as<T, SelectionDisposition> || std::same_as<T, ResponderDecision> ||
    std::same_as<T, ResponderPlan> || std::same_as<T, Probability> ||
    std::same_as<T, CandidateProbability> || std::same_as<T, SelectionEvaluation> ||
    std::same_as<T, SelectorResult> || std::same_as<T, MentionDispatchPolicy> ||
    std::same_as<T, DispatchKey> || std::same_as<T, DispatchConversation> ||
    std::same_as<T, MentionDispatchInput> || std::same_as<T, MentionTurnRequest> ||
    std::same_as<T, NoDispatchReason> || std::same_as<T, MentionDispatchDecision> ||
    std::same_as<T, EnqueueRefusal> || std::same_as<T, EnqueueOutcome> ||
    std::same_as<T, MentionDispatchOutcome> || std::same_as<T, Conversation> ||
    std::same_as<T, MentionDispatchContext> || std::same_as<T, QueueErrorKind> ||
    std::same_as<T, QueueError> || std::same_as<T, Brevity> ||
    std::same_as<T, BriefedTeammate> || std::same_as<T, TeamBriefing>;

// The tree-level calls below (`parse`, `from_value`, `to_value`, `error_value`) take or
// return `Value`; using them needs `<nlohmann/json.hpp>`. `decode` and `encode` do not.

/// Parses `text` as one JSON document. Refuses malformed JSON and any key repeated within
/// one object (SPEC §0.5). When `repeated_keys` is given, repeated keys are not refused but
/// their JSON Pointer paths are appended there (the first value is kept), so a caller can
/// refuse just the part of a larger document that holds them.
[[nodiscard]] Result<Value, DecodeError> parse(std::string_view text,
                                               std::vector<std::string>* repeated_keys = nullptr);

/// Decodes `value` as a `T`; error paths start with `root` (a JSON Pointer, "" for the
/// document itself).
template <WireType T>
[[nodiscard]] Result<T, DecodeError> from_value(const Value& value, std::string_view root = "");

/// The wire form of `value` as a JSON tree (SPEC §6): required-nullable keys are written as
/// `null`; only `quiet: false` and `responder_mode: "lead"` are omitted.
template <WireType T>
[[nodiscard]] Value to_value(const T& value);

/// `parse` then `from_value`: the one-call decoder of a wire document (SPEC §0.5, §0.8).
template <WireType T>
[[nodiscard]] Result<T, DecodeError> decode(std::string_view text);

/// The compact wire text of `value` (SPEC §6), keys in the SPEC's order.
template <WireType T>
[[nodiscard]] std::string encode(const T& value);

/// The case-file form of a core error (cases.md): `{"variant": name, <its fields>,
/// "message": sentence}`.
[[nodiscard]] Value error_value(const RosterError& error);
/// `{"variant": name, <its fields>, "message": sentence}` for a desk error.
[[nodiscard]] Value error_value(const DeskError& error);
/// The inner roster, desk or ladder error in the same flat form.
[[nodiscard]] Value error_value(const ResponderError& error);
/// The inner roster or desk error in the same flat form.
[[nodiscard]] Value error_value(const BriefingError& error);
/// `{"variant": "Core", "core": {...}}` or `{"variant": "Enqueue", "kind", "message"}`.
[[nodiscard]] Value error_value(const DispatchMentionError& error);
/// `{"variant": "Decode", "path", "reason"}`.
[[nodiscard]] Value error_value(const DecodeError& error);

}  // namespace thm::json
