// The strict JSON reader behind thm::json::parse: nlohmann's SAX parser feeding a tree
// builder that notices keys repeated within one object (SPEC §0.5), which nlohmann's own
// DOM parser would silently collapse to the last one.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "thm/json/json.hpp"
#include "thm/json/pointer.hpp"

namespace thm::json {
namespace {

class TreeBuilder final : public nlohmann::json_sax<Value> {
 public:
  explicit TreeBuilder(std::vector<std::string>* repeated_keys) : repeated_keys_(repeated_keys) {}

  bool null() override { return add(Value(nullptr)); }
  bool boolean(bool value) override { return add(Value(value)); }
  bool number_integer(number_integer_t value) override { return add(Value(value)); }
  bool number_unsigned(number_unsigned_t value) override { return add(Value(value)); }
  bool number_float(number_float_t value, const string_t&) override { return add(Value(value)); }
  bool string(string_t& value) override { return add(Value(std::move(value))); }
  bool binary(binary_t& value) override { return add(Value::binary(std::move(value))); }

  bool start_object(std::size_t) override {
    // Room for a typical wire object's members up front: growing a vector of
    // `pair<const std::string, Value>` copies every key, since a const key cannot move.
    Value object = Value::object();
    object.get_ref<Value::object_t&>().reserve(8);
    return open(std::move(object));
  }
  bool start_array(std::size_t) override { return open(Value::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& key) override {
    // The object's own members find a repeated key: one linear pass, as ordered_json's own
    // insert makes anyway, with no set beside it.
    Frame& frame = frames_.back();
    auto [member, inserted] = frame.container->get_ref<Value::object_t&>().emplace(key, nullptr);
    if (inserted) {
      frame.next = &member->second;
      frame.member_key = &member->first;
      return true;
    }
    frame.next = nullptr;
    frame.member_key = nullptr;
    frame.repeated_key = key;
    const std::string where = path() + "/" + escape_pointer_token(key);
    if (repeated_keys_ == nullptr) {
      error_ = DecodeError{.path = where, .reason = "a key is repeated within one object"};
      return false;
    }
    repeated_keys_->push_back(where);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& failure) override {
    error_ = DecodeError{
        .path = "",
        .reason = "not valid json at byte " + std::to_string(position) + ": " + failure.what()};
    return false;
  }

  [[nodiscard]] Result<Value, DecodeError> finish() && {
    if (error_.has_value()) return unexpected{*std::move(error_)};
    return std::move(root_);
  }

 private:
  // An open container. In an object, `next` is the member the next value fills and
  // `member_key` that member's key; both point into the container, which nothing changes
  // while one of its values is open. For a repeated key both are null (the value is
  // dropped) and the key is kept in `repeated_key`: never pointed to, since frames move
  // when `frames_` grows.
  struct Frame {
    Value* container = nullptr;
    Value* next = nullptr;
    const std::string* member_key = nullptr;
    std::string repeated_key{};

    [[nodiscard]] const std::string& key() const {
      return member_key != nullptr ? *member_key : repeated_key;
    }
  };

  // Where the next value goes; null when it is the value of a repeated key (dropped).
  Value* slot() {
    if (frames_.empty()) return &root_;
    Frame& frame = frames_.back();
    if (frame.container->is_array()) {
      frame.container->push_back(nullptr);
      return &frame.container->back();
    }
    return frame.next;
  }

  bool add(Value value) {
    if (Value* target = slot()) *target = std::move(value);
    return true;
  }

  bool open(Value empty) {
    if (frames_.size() >= kMaxDepth) {
      error_ = DecodeError{.path = path(),
                           .reason = "nested deeper than " + std::to_string(kMaxDepth) + " levels"};
      return false;
    }
    Value* target = slot();
    if (target == nullptr) {
      scratch_.push_back(std::make_unique<Value>());
      target = scratch_.back().get();
    }
    *target = std::move(empty);
    frames_.push_back(Frame{.container = target});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  // The JSON Pointer of the innermost open container.
  std::string path() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Value& container = *frames_[i].container;
      out += '/';
      out += container.is_array() ? std::to_string(container.size() - 1)
                                  : escape_pointer_token(frames_[i].key());
    }
    return out;
  }

  std::vector<std::string>* repeated_keys_;
  Value root_;
  std::vector<Frame> frames_;
  std::vector<std::unique_ptr<Value>> scratch_;  // containers under repeated keys
  std::optional<DecodeError> error_;
};

}  // namespace

Result<Value, DecodeError> parse(std::string_view text, std::vector<std::string>* repeated_keys) {
  if (text.starts_with("\xEF\xBB\xBF")) {
    return unexpected{DecodeError{.path = "", .reason = "a byte order mark is not allowed"}};
  }
  TreeBuilder builder(repeated_keys);
  try {
    (void)Value::sax_parse(text, &builder);
  } catch (const std::exception& failure) {
    return unexpected{
        DecodeError{.path = "", .reason = std::string("not valid json: ") + failure.what()}};
  }
  auto tree = std::move(builder).finish();
  // nlohmann's lexer takes a NUL byte for the end of the input, so a value followed by one
  // would parse as if nothing came after it. JSON allows no raw NUL anywhere (inside a
  // string the lexer refuses it), so a NUL after a complete value starts trailing bytes:
  // the document says more than one thing (SPEC §0.5).
  if (const std::size_t nul = text.find('\0'); tree.has_value() && nul != std::string_view::npos) {
    return unexpected{DecodeError{
        .path = "",
        .reason = "trailing bytes after the JSON value: a NUL byte at byte " + std::to_string(nul) +
                  " and what follows it; a document holds one value and nothing after it"}};
  }
  return tree;
}

}  // namespace thm::json
