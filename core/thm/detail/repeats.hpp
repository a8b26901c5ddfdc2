#pragma once
/// \file
/// Finding the first repeated id of a list, with no allocation for the short lists chats hold
/// (SPEC §1.1, §1.2 "appears twice", exact comparison); shared by roster and desk validation.

#include <cstddef>
#include <memory_resource>
#include <string_view>
#include <unordered_set>

namespace thm::detail {

/// Lists up to this long are checked pairwise: no allocation, and for the handful of ids a
/// chat holds fewer instructions than hashing or sorting them.
inline constexpr std::size_t kPairwiseRepeatLimit = 32;

/// Exactly `a == b`, testing the last byte first: ids that share a prefix (`agent_1`,
/// `agent_2`) differ there, which spares the `memcmp` call of most unequal pairs.
[[nodiscard]] inline bool same_id(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && (a.empty() || a.back() == b.back()) && a == b;
}

/// The smallest index `i < count` whose id `id_at(i)` equals (exactly) the id of some
/// `j < i`, or `count` when the ids are distinct. That is where a left-to-right scan with a
/// set of seen ids stops, and beyond `kPairwiseRepeatLimit` ids that is what it does (a
/// hash set in one arena: linear, a few blocks); up to it, pairwise with no allocation.
template <class IdAt>
[[nodiscard]] std::size_t first_repeat(std::size_t count, IdAt id_at) {
  if (count <= kPairwiseRepeatLimit) {
    for (std::size_t i = 1; i < count; ++i) {
      const std::string_view id = id_at(i);
      for (std::size_t j = 0; j < i; ++j) {
        if (same_id(id_at(j), id)) return i;
      }
    }
    return count;
  }
  std::pmr::monotonic_buffer_resource arena;
  std::pmr::unordered_set<std::string_view> seen(&arena);
  seen.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!seen.insert(id_at(i)).second) return i;
  }
  return count;
}

}  // namespace thm::detail
