#pragma once
// Internal to the case runner: reading an op's `input` with the wire decoder, and small
// result helpers shared by the core and model operation tables.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "thm/cli/cases.hpp"
#include "thm/json/json.hpp"

namespace thm::cli {

using json::Value;

// Reads the keys of an op's `input` object, remembering the first decode error.
class Args {
 public:
  // `root` is the JSON Pointer of `input` within the case; `refused` an error already
  // found in it.
  explicit Args(const Value& input, std::string root = "/input",
                std::optional<json::DecodeError> refused = std::nullopt)
      : input_(input), root_(std::move(root)), error_(std::move(refused)) {
    if (!input.is_object()) fail(json::DecodeError{.path = root_, .reason = "expected an object"});
  }

  template <json::WireType T>
  T wire(const char* key) {
    const Value* value = field(key);
    if (value == nullptr) return T{};
    auto decoded = json::from_value<T>(*value, path(key));
    if (!decoded.has_value()) {
      error_ = std::move(decoded).error();
      return T{};
    }
    return *std::move(decoded);
  }

  template <json::WireType T>
  std::optional<T> nullable_wire(const char* key) {
    const Value* value = field(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    return wire<T>(key);
  }

  template <json::WireType T>
  std::vector<T> list(const char* key) {
    const Value* value = field(key);
    if (value == nullptr) return {};
    if (!value->is_array()) {
      error_ = json::DecodeError{.path = path(key), .reason = "expected an array"};
      return {};
    }
    std::vector<T> out;
    for (std::size_t i = 0; i < value->size(); ++i) {
      auto decoded = json::from_value<T>((*value)[i], path(key) + "/" + std::to_string(i));
      if (!decoded.has_value()) {
        error_ = std::move(decoded).error();
        return {};
      }
      out.push_back(*std::move(decoded));
    }
    return out;
  }

  template <json::WireType T>
  std::optional<std::vector<T>> nullable_list(const char* key) {
    const Value* value = field(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    return list<T>(key);
  }

  std::string text(const char* key) {
    const Value* value = field(key);
    if (value == nullptr) return {};
    if (!value->is_string()) {
      error_ = json::DecodeError{.path = path(key), .reason = "expected a string"};
      return {};
    }
    return value->get<std::string>();
  }

  std::optional<std::string> nullable_text(const char* key) {
    const Value* value = field(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    return text(key);
  }

  // The raw value of `key`, or null after recording a missing-key error.
  const Value* field(const char* key) {
    if (error_.has_value()) return nullptr;
    const auto found = input_.find(key);
    if (found == input_.end()) {
      error_ = json::DecodeError{.path = path(key),
                                 .reason = std::string("required key \"") + key + "\" is missing"};
      return nullptr;
    }
    return &*found;
  }

  void fail(const char* key, std::string reason) {
    if (!error_.has_value())
      error_ = json::DecodeError{.path = path(key), .reason = std::move(reason)};
  }
  void fail(json::DecodeError error) {
    if (!error_.has_value()) error_ = std::move(error);
  }

  [[nodiscard]] const std::optional<json::DecodeError>& error() const { return error_; }

  // `thm check --impl prepared`: whether the ops that take snapshots prepare a team, and
  // where they note that they could not.
  void run_prepared(RunNotes* notes) {
    prepared_ = true;
    notes_ = notes;
  }
  [[nodiscard]] bool prepared() const { return prepared_; }
  // `thm explain`: whether the ops that can explain themselves add their `trace` (SPEC §8).
  void explain() { explaining_ = true; }
  [[nodiscard]] bool explaining() const { return explaining_; }
  void note_unprepared() {
    if (notes_ != nullptr) notes_->unprepared = true;
  }

 private:
  [[nodiscard]] std::string path(const char* key) const { return root_ + "/" + key; }

  const Value& input_;
  std::string root_;
  std::optional<json::DecodeError> error_;
  bool prepared_ = false;
  bool explaining_ = false;
  RunNotes* notes_ = nullptr;
};

inline Value error_result(const json::DecodeError& error) {
  return {{"error", json::error_value(error)}};
}

inline Value optional_id(const std::optional<std::string>& id) {
  return id.has_value() ? Value(*id) : Value(nullptr);
}

inline Value id_list(const std::vector<std::string>& ids) {
  Value out = Value::array();
  for (const std::string& id : ids) out.push_back(id);
  return out;
}

/// The `display_equal` operation (cases.md) for either implementation: reads `a` and `b`,
/// each `{"type", "variant"}`, renders both with `display(Args&) -> std::string` (which
/// records a decode error for an unknown type or variant) and compares the sentences.
template <class Display>
Value display_equal(Args& a, Display display) {
  const Value* first = a.field("a");
  const Value* second = a.field("b");
  if (a.error()) return error_result(*a.error());
  Args first_args(*first, "/input/a");
  Args second_args(*second, "/input/b");
  const std::string x = display(first_args);
  const std::string y = display(second_args);
  if (first_args.error()) return error_result(*first_args.error());
  if (second_args.error()) return error_result(*second_args.error());
  return {{"equal", x == y}};
}

/// An operation: reads its input through `Args`, returns its result object.
using Op = Value (*)(Args&);
using OpTable = std::map<std::string, Op, std::less<>>;

/// Every operation of cases.md, run by the core (ops.cpp) and by the model (model_ops.cpp).
const OpTable& core_operations();
const OpTable& model_operations();

/// The `decode` operation: the wire forms are shared by both implementations.
Value decode_op(Args& a);

/// What a `dispatch_mention` case scripts its queue to answer (`input.queue`): an
/// EnqueueOutcome, or `{"fail": message}` with an optional `kind` (default `unavailable`).
Result<EnqueueOutcome, QueueError> scripted_answer(Args& a);

}  // namespace thm::cli
