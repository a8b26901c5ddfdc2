#pragma once
/// \file
/// Shared helper behind every `x_from_name` function (house style §6): the inverse of an
/// enum's exhaustive `name()` switch, found by walking the list of all enumerators.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace thm::detail {

/// The enumerator of `all` whose `name()` equals `token` exactly, or nothing.
template <class E, std::size_t N>
[[nodiscard]] constexpr std::optional<E> enum_from_name(std::string_view token,
                                                        const std::array<E, N>& all) {
  for (E value : all) {
    if (name(value) == token) return value;
  }
  return std::nullopt;
}

}  // namespace thm::detail
