#pragma once
/// \file
/// An insert-only hash map from borrowed strings to small values, for the indexes of a
/// prepared team and the alias table (internal).

#include <algorithm>
#include <bit>
#include <cstddef>
#include <string_view>  // and std::hash<std::string_view>
#include <utility>
#include <vector>

#include "thm/detail/repeats.hpp"

namespace thm::detail {

/// Open addressing with linear probing over a power-of-two array of `{key, value}` slots,
/// at most three quarters full. Keys are views: the strings they show must outlive the
/// index and stay where they are. Keys compare exactly (`same_id`); an empty key is a key
/// like any other. No erase: the tables it serves are built once and then only read.
template <class Value>
class FlatIndex {
 public:
  /// An empty index with room for `expected` keys before it first grows.
  explicit FlatIndex(std::size_t expected = 0) { rehash(capacity_for(expected)); }

  /// The value under `key`, and whether it was absent: then `value` is stored under it.
  std::pair<Value&, bool> try_emplace(std::string_view key, Value value) {
    if (key.data() == nullptr) key = std::string_view("", 0);  // a null view marks a free slot
    if (4 * (size_ + 1) > 3 * slots_.size()) rehash(2 * slots_.size());
    Slot& slot = probe(slots_, key);
    if (slot.used()) return {slot.value, false};
    slot = Slot{.key = key, .value = std::move(value)};
    ++size_;
    return {slot.value, true};
  }

  /// The value under `key`, or null.
  [[nodiscard]] const Value* find(std::string_view key) const noexcept {
    const Slot& slot = probe(slots_, key);
    return slot.used() ? &slot.value : nullptr;
  }

  /// How many keys it holds.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// The bytes of its slot array (the heap it owns).
  [[nodiscard]] std::size_t bytes() const noexcept { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    std::string_view key{};  // null while the slot is free
    Value value{};
    [[nodiscard]] bool used() const noexcept { return key.data() != nullptr; }
  };

  static std::size_t capacity_for(std::size_t keys) {
    return std::bit_ceil(std::max<std::size_t>(8, (4 * keys + 2) / 3));
  }

  // The slot of `slots` holding `key`, or the free slot where it would go (one is always
  // free: the array is at most three quarters full).
  template <class Slots>
  static auto& probe(Slots& slots, std::string_view key) noexcept {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = std::hash<std::string_view>{}(key)&mask;; i = (i + 1) & mask) {
      auto& slot = slots[i];
      if (!slot.used() || same_id(slot.key, key)) return slot;
    }
  }

  void rehash(std::size_t capacity) {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(capacity));
    for (Slot& slot : old) {
      if (slot.used()) probe(slots_, slot.key) = std::move(slot);
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace thm::detail
