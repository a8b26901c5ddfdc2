#pragma once
/// \file
/// ASCII-only case folding, for the rules that SPEC words as "ASCII case-insensitive"
/// (General spellings §1.3, reserved desk identities §1.2, selector answers §2.5).

#include <cstddef>
#include <string_view>

namespace thm::detail {

/// `c` with `A`–`Z` mapped to `a`–`z`; every other byte unchanged.
[[nodiscard]] constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

/// True when `a` and `b` are equal once ASCII letters are folded; other bytes (non-ASCII
/// letters included) must match exactly.
[[nodiscard]] constexpr bool equals_ignoring_ascii_case(std::string_view a,
                                                        std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

}  // namespace thm::detail
