#include "thm/protocol/protocol.hpp"

#include <array>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "thm/detail/unicode.hpp"
#include "thm/protocol/protocol_schema.hpp"  // generated from kit/protocol/v1.schema.json

namespace thm::protocol {

namespace {

// ---- bytes -------------------------------------------------------------------------------------
// RFC 4648 base64 is a few lines; Debian's C libraries for it (libb64, libbaseencode) wrap
// lines or allocate through C interfaces, which would take as many lines to tame.

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const auto group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                       static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[group >> shift & 0x3f];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2)
      group |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[group >> 18 & 0x3f];
    out += kAlphabet[group >> 12 & 0x3f];
    out += rest == 2 ? kAlphabet[group >> 6 & 0x3f] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) throw ProtocolError("base64 length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t group = 0;
    int padding = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++padding;
        group <<= 6;
        continue;
      }
      const auto digit = kAlphabet.find(c);
      if (digit == std::string_view::npos || padding > 0) {
        throw ProtocolError("base64 holds a character outside RFC 4648's alphabet");
      }
      group = group << 6 | static_cast<std::uint32_t>(digit);
    }
    out += static_cast<char>(group >> 16 & 0xff);
    if (padding < 2) out += static_cast<char>(group >> 8 & 0xff);
    if (padding < 1) out += static_cast<char>(group & 0xff);
  }
  return out;
}

bool is_utf8(std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const thm::detail::DecodedChar next = thm::detail::decode_at(bytes, at);
    if (next.code_point == thm::detail::kInvalidCodePoint) return false;
    at += next.length;
  }
  return true;
}

// ---- reading -----------------------------------------------------------------------------------

const Json& field(const Json& object, const char* key) {
  if (!object.is_object())
    throw ProtocolError(std::string("expected an object holding '") + key + "'");
  const auto found = object.find(key);
  if (found == object.end()) throw ProtocolError(std::string("'") + key + "' is missing");
  return *found;
}

template <class Unsigned>
Unsigned unsigned_field(const Json& object, const char* key) {
  const Json& value = field(object, key);
  if (!value.is_number_unsigned())
    throw ProtocolError(std::string("'") + key + "' is not an integer >= 0");
  const auto number = value.get<std::uint64_t>();
  if constexpr (sizeof(Unsigned) < sizeof(std::uint64_t)) {
    if (number > std::numeric_limits<Unsigned>::max()) {
      throw ProtocolError(std::string("'") + key + "' is out of range");
    }
  }
  return static_cast<Unsigned>(number);
}

std::int64_t integer_field(const Json& object, const char* key) {
  const Json& value = field(object, key);
  if (!value.is_number_integer())
    throw ProtocolError(std::string("'") + key + "' is not an integer");
  return value.get<std::int64_t>();
}

std::string string_field(const Json& object, const char* key) {
  const Json& value = field(object, key);
  if (!value.is_string()) throw ProtocolError(std::string("'") + key + "' is not a string");
  return value.get<std::string>();
}

bool bool_field(const Json& object, const char* key) {
  const Json& value = field(object, key);
  if (!value.is_boolean()) throw ProtocolError(std::string("'") + key + "' is not a boolean");
  return value.get<bool>();
}

StoreTime time_from(std::int64_t millis) { return StoreTime{std::chrono::milliseconds{millis}}; }
std::int64_t millis_of(StoreTime time) { return time.time_since_epoch().count(); }

template <std::size_t N>
std::optional<std::size_t> index_of(std::string_view token,
                                    const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == token) return i;
  }
  return std::nullopt;
}

Json conversation_to_json(const DispatchConversation& conversation) {
  return {
      {"desk_id", bytes_to_json(conversation.desk_id)},
      {"thread_root", conversation.thread_root ? Json(*conversation.thread_root) : Json(nullptr)}};
}

DispatchConversation conversation_from_json(const Json& value) {
  DispatchConversation out{.desk_id = bytes_from_json(field(value, "desk_id"))};
  if (!field(value, "thread_root").is_null())
    out.thread_root = unsigned_field<Sequence>(value, "thread_root");
  return out;
}

std::optional<std::size_t> limit_from(const Json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::nullopt;
  return unsigned_field<std::size_t>(object, key);
}

Json limit_to_json(const std::optional<std::size_t>& limit) {
  return limit ? Json(*limit) : Json(nullptr);
}

Result<std::string, LeaseError> lease_error_in(const Json& result) {
  const std::string token = string_field(result, "lease_error");
  for (const LeaseError error :
       {LeaseError::StaleToken, LeaseError::InvalidDuration, LeaseError::Unavailable}) {
    if (name(error) == token) return unexpected{error};
  }
  throw ProtocolError("'lease_error' is not a lease error: " + token);
}

// ---- schemas -----------------------------------------------------------------------------------

class Schemas {
 public:
  Schemas() : root_(Json::parse(kSchemaJson)) {}

  [[nodiscard]] bool defines(const std::string& definition) const {
    return root_.at("definitions").contains(definition);
  }

  const valijson::Schema& of(std::string_view definition) {
    const std::lock_guard lock(mutex_);
    const auto cached = parsed_.find(std::string(definition));
    if (cached != parsed_.end()) return *cached->second;
    if (!root_.at("definitions").contains(std::string(definition))) {
      throw ProtocolError("the schema has no definition '" + std::string(definition) + "'");
    }
    // One document per definition: the shared definitions, and a root that refers to one.
    const Json document{{"$schema", root_.at("$schema")},
                        {"definitions", root_.at("definitions")},
                        {"$ref", "#/definitions/" + std::string(definition)}};
    auto schema = std::make_unique<valijson::Schema>();
    valijson::SchemaParser parser;
    const valijson::adapters::NlohmannJsonAdapter adapter(document);
    parser.populateSchema(adapter, *schema);
    return *parsed_.emplace(std::string(definition), std::move(schema)).first->second;
  }

 private:
  Json root_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<valijson::Schema>, std::less<>> parsed_;
};

Schemas& schemas() {
  static Schemas instance;
  return instance;
}

}  // namespace

Json bytes_to_json(std::string_view bytes) {
  if (is_utf8(bytes)) return std::string(bytes);
  return {{"base64", base64_encode(bytes)}};
}

std::string bytes_from_json(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.size() == 1 && value.contains("base64")) {
    return base64_decode(string_field(value, "base64"));
  }
  throw ProtocolError("a byte string is neither a string nor {\"base64\": ...}");
}

Json to_json(const MentionTurnRequest& request) {
  return {{"key", {{"trigger_sequence", request.key.trigger_sequence}}},
          {"source_id", bytes_to_json(request.source_id)},
          {"target_id", bytes_to_json(request.target_id)},
          {"content", bytes_to_json(request.content)},
          {"conversation", conversation_to_json(request.conversation)},
          {"child_hop", request.child_hop}};
}

MentionTurnRequest request_from_json(const Json& value) {
  return {.key = {.trigger_sequence =
                      unsigned_field<Sequence>(field(value, "key"), "trigger_sequence")},
          .source_id = bytes_from_json(field(value, "source_id")),
          .target_id = bytes_from_json(field(value, "target_id")),
          .content = bytes_from_json(field(value, "content")),
          .conversation = conversation_from_json(field(value, "conversation")),
          .child_hop = unsigned_field<std::uint32_t>(value, "child_hop")};
}

Json to_json(const CommittedReply& reply) {
  return {{"conversation", conversation_to_json(reply.conversation)},
          {"sequence", reply.sequence},
          {"author_id", bytes_to_json(reply.author_id)},
          {"content", bytes_to_json(reply.content)},
          {"hop", reply.hop}};
}

CommittedReply reply_from_json(const Json& value) {
  return {.conversation = conversation_from_json(field(value, "conversation")),
          .sequence = unsigned_field<Sequence>(value, "sequence"),
          .author_id = bytes_from_json(field(value, "author_id")),
          .content = bytes_from_json(field(value, "content")),
          .hop = unsigned_field<std::uint32_t>(value, "hop")};
}

Json to_json(const MentionDispatchPolicy& policy) {
  return {{"enabled", policy.enabled}, {"max_hops", policy.max_hops}};
}

MentionDispatchPolicy policy_from_json(const Json& value) {
  return {.enabled = bool_field(value, "enabled"),
          .max_hops = unsigned_field<std::uint32_t>(value, "max_hops")};
}

Json to_json(const Capabilities& capabilities) {
  return {{"hooks", capabilities.hooks},
          {"row_locking", capabilities.row_locking},
          {"persistent", capabilities.persistent},
          {"sql_schema", capabilities.sql_schema},
          {"leases", capabilities.leases},
          {"injected_store_clock", capabilities.injected_store_clock},
          {"skewable_client_clock", capabilities.skewable_client_clock},
          {"max_content_bytes", limit_to_json(capabilities.max_content_bytes)},
          {"max_id_bytes", limit_to_json(capabilities.max_id_bytes)},
          {"max_attempts",
           capabilities.max_attempts ? Json(*capabilities.max_attempts) : Json(nullptr)},
          {"max_sessions", limit_to_json(capabilities.max_sessions)},
          {"nodes", capabilities.nodes},
          {"election_timeout", capabilities.election_timeout
                                   ? Json(capabilities.election_timeout->count())
                                   : Json(nullptr)}};
}

Capabilities capabilities_from_json(const Json& value) {
  const auto flag = [&](const char* key) {
    const auto found = value.find(key);
    return found != value.end() && found->is_boolean() && found->get<bool>();
  };
  Capabilities out{.hooks = flag("hooks"),
                   .row_locking = flag("row_locking"),
                   .persistent = flag("persistent"),
                   .sql_schema = flag("sql_schema"),
                   .max_content_bytes = limit_from(value, "max_content_bytes"),
                   .max_id_bytes = limit_from(value, "max_id_bytes"),
                   .leases = flag("leases"),
                   .injected_store_clock = flag("injected_store_clock"),
                   .skewable_client_clock = flag("skewable_client_clock")};
  if (const auto attempts = limit_from(value, "max_attempts")) {
    if (*attempts > std::numeric_limits<std::uint32_t>::max()) {
      throw ProtocolError("'max_attempts' is out of range");
    }
    out.max_attempts = static_cast<std::uint32_t>(*attempts);
  }
  out.max_sessions = limit_from(value, "max_sessions");
  out.nodes = flag("nodes");
  if (const auto timeout = value.find("election_timeout");
      timeout != value.end() && !timeout->is_null()) {
    if (!timeout->is_number_integer()) {
      throw ProtocolError("'election_timeout' is not an integer of milliseconds");
    }
    // 1 ms to 2^32-1 ms, as the schema says: twice it (EQ-30's pause) cannot overflow. A
    // number past 2^63 reads as negative here, and is refused with the rest.
    const auto millis = timeout->get<std::int64_t>();
    if (millis < 1 || millis > std::int64_t{std::numeric_limits<std::uint32_t>::max()}) {
      throw ProtocolError("'election_timeout' is out of range");
    }
    out.election_timeout = std::chrono::milliseconds(millis);
  }
  return out;
}

Json to_json(const Lease& lease) {
  return {{"child_id", lease.child_id},
          {"token", lease.token},
          {"expires_at", millis_of(lease.expires_at)},
          {"attempt", lease.attempt},
          {"request", to_json(lease.request)}};
}

Lease lease_from_json(const Json& value) {
  return {.child_id = unsigned_field<std::uint64_t>(value, "child_id"),
          .token = string_field(value, "token"),
          .expires_at = time_from(integer_field(value, "expires_at")),
          .attempt = unsigned_field<std::uint32_t>(value, "attempt"),
          .request = request_from_json(field(value, "request"))};
}

namespace {
// A child's state: one of thm's tokens (`pending`, `completed`, `failed`, `dead`).
TurnState state_from_json(const Json& value) {
  if (value.is_string()) {
    if (const auto state = turn_state_from_name(value.get<std::string>())) return *state;
  }
  throw ProtocolError("the state " + value.dump() +
                      " is none of pending, completed, failed and dead");
}
}  // namespace

Json to_json(const ChildTurn& row) {
  return {{"id", row.id},
          {"key", bytes_to_json(row.key)},
          {"request", to_json(row.request)},
          {"state", name(row.state)},
          {"attempts", row.attempts},
          {"lease_expires_at",
           row.lease_expires_at ? Json(millis_of(*row.lease_expires_at)) : Json(nullptr)}};
}

ChildTurn child_from_json(const Json& value) {
  ChildTurn out{.id = unsigned_field<std::uint64_t>(value, "id"),
                .key = bytes_from_json(field(value, "key")),
                .request = request_from_json(field(value, "request")),
                .state = state_from_json(field(value, "state")),
                .attempts = unsigned_field<std::uint32_t>(value, "attempts")};
  if (!field(value, "lease_expires_at").is_null()) {
    out.lease_expires_at = time_from(integer_field(value, "lease_expires_at"));
  }
  return out;
}

Json to_json(const IdempotencyRecord& row) {
  return {{"key", bytes_to_json(row.key)}, {"child_id", row.child_id}};
}

IdempotencyRecord record_from_json(const Json& value) {
  return {.key = bytes_from_json(field(value, "key")),
          .child_id = unsigned_field<std::uint64_t>(value, "child_id")};
}

Json enqueue_result(const Result<EnqueueOutcome, QueueError>& answer) {
  if (!answer) {
    return {{"queue_error",
             {{"kind", name(answer.error().kind)}, {"message", answer.error().message}}}};
  }
  return std::visit(
      overloaded{
          [](const Enqueued&) {
            return Json{{"outcome", {{"status", "enqueued"}}}};
          },
          [](const Already&) {
            return Json{{"outcome", {{"status", "already"}}}};
          },
          [](const Refused& refused) {
            return Json{{"outcome", {{"status", "refused"}, {"reason", name(refused.reason)}}}};
          }},
      *answer);
}

Result<EnqueueOutcome, QueueError> enqueue_answer(const Json& result) {
  if (result.contains("queue_error")) {
    const Json& error = result.at("queue_error");
    const auto kind = queue_error_kind_from_name(string_field(error, "kind"));
    if (!kind) throw ProtocolError("'queue_error.kind' is not a QueueErrorKind");
    return unexpected{QueueError{*kind, string_field(error, "message")}};
  }
  const Json& outcome = field(result, "outcome");
  const std::string status = string_field(outcome, "status");
  if (status == "enqueued") return EnqueueOutcome{Enqueued{}};
  if (status == "already") return EnqueueOutcome{Already{}};
  if (status == "refused") {
    const auto reason = enqueue_refusal_from_name(string_field(outcome, "reason"));
    if (!reason) throw ProtocolError("'outcome.reason' is not an EnqueueRefusal");
    return EnqueueOutcome{Refused{*reason}};
  }
  throw ProtocolError("'outcome.status' is not enqueued, already or refused");
}

Json claim_result(const Result<std::optional<Lease>, LeaseError>& answer) {
  if (!answer) return {{"lease_error", name(answer.error())}};
  return {{"lease", *answer ? to_json(**answer) : Json(nullptr)}};
}

Result<std::optional<Lease>, LeaseError> claim_answer(const Json& result) {
  if (result.contains("lease_error")) return unexpected{lease_error_in(result).error()};
  const Json& lease = field(result, "lease");
  if (lease.is_null()) return std::optional<Lease>{};
  return std::optional<Lease>{lease_from_json(lease)};
}

Json renew_result(const Result<StoreTime, LeaseError>& answer) {
  if (!answer) return {{"lease_error", name(answer.error())}};
  return {{"expires_at", millis_of(*answer)}};
}

Result<StoreTime, LeaseError> renew_answer(const Json& result) {
  if (result.contains("lease_error")) return unexpected{lease_error_in(result).error()};
  return time_from(integer_field(result, "expires_at"));
}

Json state_result(const Result<TurnState, LeaseError>& answer) {
  if (!answer) return {{"lease_error", name(answer.error())}};
  return {{"state", name(*answer)}};
}

Result<TurnState, LeaseError> state_answer(const Json& result) {
  if (result.contains("lease_error")) return unexpected{lease_error_in(result).error()};
  return state_from_json(field(result, "state"));
}

std::optional<Settlement> settlement_from_name(std::string_view token) noexcept {
  for (const Settlement how :
       {Settlement::Complete, Settlement::Fail, Settlement::DeadLetter, Settlement::Delete}) {
    if (conformance::name(how) == token) return how;
  }
  return std::nullopt;
}

void validate(const Json& message, std::string_view definition) {
  const valijson::Schema& schema = schemas().of(definition);
  valijson::Validator validator;
  valijson::ValidationResults results;
  const valijson::adapters::NlohmannJsonAdapter target(message);
  if (validator.validate(schema, target, &results)) return;
  // The deepest error names the value that broke the rule; the outer ones only repeat it.
  valijson::ValidationResults::Error error;
  valijson::ValidationResults::Error deepest;
  while (results.popError(error)) {
    if (error.context.size() >= deepest.context.size()) deepest = error;
  }
  std::string where;
  for (const std::string& step : deepest.context) where += step;
  throw ProtocolError("not a valid " + std::string(definition) + " message: at " +
                      (where.empty() ? "<root>" : where) + ": " + deepest.description);
}

bool is_operation(std::string_view op) { return schemas().defines("request." + std::string(op)); }

std::string_view schema_text() noexcept { return kSchemaJson; }

}  // namespace thm::protocol
