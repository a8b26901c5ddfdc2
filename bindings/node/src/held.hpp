#pragma once
// Wire values with their C++ value attached (adr/0014). `thm.fromJSON(type, value)` decodes
// `value` once and answers its wire form as a frozen object that also holds the decoded
// C++ value (`napi_wrap`, behind a type tag no other addon uses). An operation given such
// an object where it expects that type reads the C++ value as it is; given anything else,
// it decodes the argument there and then. Either way the answer is the same.

#include <napi.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "thm/json/json.hpp"
#include "thm/team/team.hpp"

namespace thm::node {

/// The index of the wire type `T` in `json::WireTypes`.
template <json::WireType T>
constexpr std::size_t wire_index() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    std::size_t out = 0;
    ((std::is_same_v<T, std::tuple_element_t<I, json::WireTypes>> ? (out = I) : 0), ...);
    return out;
  }
  (std::make_index_sequence<std::tuple_size_v<json::WireTypes>>{});
}

/// A decoded value held by its JavaScript wire object.
struct Held {
  Held() { ++alive; }
  virtual ~Held() { --alive; }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  std::size_t type = 0;  // its index in json::WireTypes
  /// How many exist in the process: what the addon's `heldValues()` answers, so that a test
  /// can see the garbage collector's finalizers free every one.
  static inline std::atomic<long> alive{0};
};

/// The `Held` of a wire type.
template <json::WireType T>
struct HeldValue final : Held {
  explicit HeldValue(T decoded) : value(std::move(decoded)) { type = wire_index<T>(); }
  T value;
};

/// A prepared team (adr/0016), held by the frozen `{ roster, desks }` object `prepareTeam`
/// answers; its type is the first index past the wire types.
struct HeldTeam final : Held {
  explicit HeldTeam(Team prepared) : team(std::move(prepared)) { type = kType; }
  Team team;
  static constexpr std::size_t kType = std::tuple_size_v<json::WireTypes>;
};

/// The held value of `value` if it is an object `attach` made, else null.
[[nodiscard]] const Held* held(Napi::Env env, Napi::Value value);

/// The frozen wire object of `decoded` (its encoder's form), holding `decoded`.
template <json::WireType T>
[[nodiscard]] Napi::Value attach(Napi::Env env, T decoded);

/// Attaches `value` to `wire`, the frozen wire object made of it (`attach`).
void attach_held(Napi::Env env, Napi::Object wire, std::unique_ptr<Held> value);

template <json::WireType T>
Napi::Value attach(Napi::Env env, T decoded) {
  const Napi::Value wire = to_js(env, decoded);
  // An enum's token and a probability's number hold nothing: they are their own value.
  if (!wire.IsObject()) return wire;
  attach_held(env, wire.As<Napi::Object>(), std::make_unique<HeldValue<T>>(std::move(decoded)));
  return wire;
}

/// The team `value` holds, if it is an object `prepareTeam` made, else null.
[[nodiscard]] inline const Team* held_team(Napi::Env env, Napi::Value value) {
  const Held* h = held(env, value);
  if (h == nullptr || h->type != HeldTeam::kType) return nullptr;
  return &static_cast<const HeldTeam*>(h)->team;
}

/// The value `value` holds as a `T`, if it is an object `attach` made of a `T`, else null.
template <json::WireType T>
[[nodiscard]] const T* held_as(Napi::Env env, Napi::Value value) {
  const Held* h = held(env, value);
  if (h == nullptr || h->type != wire_index<T>()) return nullptr;
  return &static_cast<const HeldValue<T>*>(h)->value;
}

/// `value`, a plain JavaScript value, decoded as a `T`; refusals are thrown as
/// `thm.DecodeError` with paths from `root`.
template <json::WireType T>
[[nodiscard]] T decode_plain(Napi::Env env, Napi::Value value, std::string_view root) {
  JsReader reader(env);
  auto decoded = json::from_reader<T>(reader, JsReader::root(value), root);
  if (!decoded) throw_decode_error(env, decoded.error());
  return *std::move(decoded);
}

/// `value` as a `T`: the value it holds, copied, or else `value` decoded (`decode_plain`).
template <json::WireType T>
[[nodiscard]] T decode(Napi::Env env, Napi::Value value, std::string_view root) {
  if (const T* kept = held_as<T>(env, value)) return *kept;
  return decode_plain<T>(env, value, root);
}

/// An argument of wire type `T`: the value its object holds, read in place, or else the
/// argument decoded (paths from `root`, e.g. `/roster`).
template <json::WireType T>
class Arg {
 public:
  Arg(Napi::Env env, Napi::Value value, std::string_view root) : value_(held_as<T>(env, value)) {
    if (value_ == nullptr) value_ = &decoded_.emplace(decode_plain<T>(env, value, root));
  }
  Arg(const Arg&) = delete;
  Arg& operator=(const Arg&) = delete;

  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_; }

 private:
  std::optional<T> decoded_;
  const T* value_ = nullptr;
};

/// An array argument of wire type `T`, each element decoded at `root/i`; `TypeError` when
/// `value` is not an array (`what` names the argument).
template <json::WireType T>
[[nodiscard]] std::vector<T> decode_list(Napi::Env env, Napi::Value value, std::string_view root,
                                         std::string_view what) {
  const auto length = array_length(env, value);
  if (!length) {
    throw Napi::TypeError::New(env,
                               std::string(what) + ": expected an array, got " + described(value));
  }
  const auto array = value.As<Napi::Object>();
  std::vector<T> out;  // not reserved: `length` is the caller's to claim
  for (std::uint32_t i = 0; i < *length; ++i) {
    const std::string at = std::string(root) + "/" + std::to_string(i);
    out.push_back(decode<T>(env, array.Get(i), at));
  }
  return out;
}

}  // namespace thm::node
