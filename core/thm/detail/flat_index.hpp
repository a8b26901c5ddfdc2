#pragma once
/// \file
/// An insert-only hash map from borrowed strings to small values, for the indexes of a
/// prepared team and the alias table (internal).

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "thm/detail/repeats.hpp"

namespace thm::detail {

/// The `length <= 8` bytes from `bytes` as the low bytes of a word (in memory order), the
/// rest zero. Read with loads that stay inside the bytes (two overlapping ones for 4 to 7),
/// never a partial copy through memory, which a CPU cannot forward to the word's load.
[[nodiscard]] inline std::uint64_t load_word(const char* bytes, std::size_t length) noexcept {
  const auto byte = [bytes](std::size_t i) {
    return std::uint64_t{static_cast<unsigned char>(bytes[i])};
  };
  if (length == 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, 8);
    return word;
  }
  if (length >= 4) {
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    std::memcpy(&low, bytes, 4);
    std::memcpy(&high, bytes + length - 4, 4);
    return std::uint64_t{low} | (std::uint64_t{high} << (8 * (length - 4)));
  }
  if (length == 0) return 0;
  return byte(0) | (byte(length / 2) << (8 * (length / 2))) |
         (byte(length - 1) << (8 * (length - 1)));
}

/// A hash of a string taken 8 bytes at a time (the last word zero-padded), so that a caller
/// that reads a key word by word anyway, as the alias lookup does while it lower-cases, hashes
/// it in the same loop: `add` each word, then `finish` with the length. The ids and aliases
/// it serves are mostly shorter than 16 bytes, where it is a few multiplications.
class WordHash {
 public:
  void add(std::uint64_t word) noexcept { state_ = std::rotl((state_ ^ word) * kOdd, 31); }
  [[nodiscard]] std::size_t finish(std::size_t length) const noexcept {
    std::uint64_t mixed = (state_ ^ length) * kOdd;
    mixed ^= mixed >> 32;
    mixed *= kOdd;
    return static_cast<std::size_t>(mixed ^ (mixed >> 29));
  }

 private:
  static constexpr std::uint64_t kOdd = 0x9E37'79B9'7F4A'7C15;
  std::uint64_t state_ = 0;
};

/// `WordHash` over all of `key`.
[[nodiscard]] inline std::size_t hash_key(std::string_view key) noexcept {
  WordHash hash;
  for (std::size_t i = 0; i < key.size(); i += 8) {
    hash.add(load_word(key.data() + i, std::min<std::size_t>(8, key.size() - i)));
  }
  return hash.finish(key.size());
}

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
    return find(key, hash_key(key));
  }
  /// The same, for a caller that has `hash == hash_key(key)` already.
  [[nodiscard]] const Value* find(std::string_view key, std::size_t hash) const noexcept {
    const Slot& slot = probe(slots_, key, hash);
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
    return probe(slots, key, hash_key(key));
  }
  template <class Slots>
  static auto& probe(Slots& slots, std::string_view key, std::size_t hash) noexcept {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
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
