#pragma once
/// \file
/// The adapter protocol, version 1 (kit/protocol/PROTOCOL.md): the JSON forms of the values
/// the suite and an adapter program exchange, and the check of every message against
/// `kit/protocol/v1.schema.json`. Used on both sides: by `ExecHarness`, which drives an adapter
/// program, and by `thm adapter memory`, which is one.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "thm/conformance/harness.hpp"
#include "thm/core.hpp"
#include "thm/store/store.hpp"

namespace thm::protocol {

// The protocol carries the suite's words (thm/conformance/harness.hpp): an adapter program
// is a `Harness` in another process.
using conformance::Capabilities;
using conformance::Clocks;
using conformance::Durability;
using conformance::Harness;
using conformance::Hold;
using conformance::KillPoint;
using conformance::NodeFaults;
using conformance::Session;
using conformance::Settlement;
using conformance::Unsupported;

/// The protocol version this build speaks (PROTOCOL.md §7).
inline constexpr int kVersion = 1;

/// A message that breaks the protocol: not JSON, not valid against its schema, or a value
/// out of range. `what()` says which key and why.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Json = nlohmann::json;

/// A byte string as the protocol carries it (PROTOCOL.md §4, "Bytes"): a JSON string when
/// `bytes` is valid UTF-8, else `{"base64": "..."}` (RFC 4648, padded).
[[nodiscard]] Json bytes_to_json(std::string_view bytes);
/// The bytes of either form. Throws `ProtocolError` for any other value or bad base64.
[[nodiscard]] std::string bytes_from_json(const Json& value);

/// `MentionTurnRequest` in its SPEC §6 wire form, with byte fields as above.
[[nodiscard]] Json to_json(const MentionTurnRequest& request);
[[nodiscard]] MentionTurnRequest request_from_json(const Json& value);
/// `CommittedReply`: `{conversation, sequence, author_id, content, hop}`.
[[nodiscard]] Json to_json(const CommittedReply& reply);
[[nodiscard]] CommittedReply reply_from_json(const Json& value);
/// `MentionDispatchPolicy`: `{enabled, max_hops}`.
[[nodiscard]] Json to_json(const MentionDispatchPolicy& policy);
[[nodiscard]] MentionDispatchPolicy policy_from_json(const Json& value);
/// `Capabilities`, every field written; a missing field reads as false or null.
/// `election_timeout` is whole milliseconds, 1 to 2^32-1; reading another value throws
/// `ProtocolError`.
[[nodiscard]] Json to_json(const Capabilities& capabilities);
[[nodiscard]] Capabilities capabilities_from_json(const Json& value);
/// A `Lease`: `{child_id, token, expires_at, attempt, request}`, times in milliseconds.
[[nodiscard]] Json to_json(const Lease& lease);
[[nodiscard]] Lease lease_from_json(const Json& value);
/// A `ChildTurn`: `{id, key, request, state, attempts, lease_expires_at}`, the state as
/// its token; the lease's token stays with the store.
[[nodiscard]] Json to_json(const ChildTurn& row);
[[nodiscard]] ChildTurn child_from_json(const Json& value);
/// An `IdempotencyRecord`: `{key, child_id}`.
[[nodiscard]] Json to_json(const IdempotencyRecord& row);
[[nodiscard]] IdempotencyRecord record_from_json(const Json& value);

/// The result of `enqueue_once`: `{"outcome": ...}` or `{"queue_error": {kind, message}}`.
[[nodiscard]] Json enqueue_result(const Result<EnqueueOutcome, QueueError>& answer);
[[nodiscard]] Result<EnqueueOutcome, QueueError> enqueue_answer(const Json& result);
/// The result of `claim`: `{"lease": ... | null}` or `{"lease_error": token}`.
[[nodiscard]] Json claim_result(const Result<std::optional<Lease>, LeaseError>& answer);
[[nodiscard]] Result<std::optional<Lease>, LeaseError> claim_answer(const Json& result);
/// The result of `renew`: `{"expires_at": ms}` or `{"lease_error": token}`.
[[nodiscard]] Json renew_result(const Result<StoreTime, LeaseError>& answer);
[[nodiscard]] Result<StoreTime, LeaseError> renew_answer(const Json& result);
/// The result of `complete` and `fail`: `{"state": token}` or `{"lease_error": token}`.
[[nodiscard]] Json state_result(const Result<TurnState, LeaseError>& answer);
[[nodiscard]] Result<TurnState, LeaseError> state_answer(const Json& result);

/// The settlement whose wire token (`conformance::name(Settlement)`) is `token`, or nothing.
[[nodiscard]] std::optional<Settlement> settlement_from_name(std::string_view token) noexcept;

/// Checks `message` against the definition `definition` of `kit/protocol/v1.schema.json`
/// (e.g. `response`, `result.claim`, `request.hello`, `hook_call`). Throws `ProtocolError`
/// naming the definition, the JSON Pointer of the first offending value and why.
void validate(const Json& message, std::string_view definition);

/// True when `op` is an operation of this protocol version (the schema defines `request.<op>`).
[[nodiscard]] bool is_operation(std::string_view op);

/// The text of `kit/protocol/v1.schema.json`, as compiled into this library.
[[nodiscard]] std::string_view schema_text() noexcept;

}  // namespace thm::protocol
