#pragma once
/// \file
/// Unicode facts the core needs (SPEC §0.7), all taken from ICU 72 (Unicode 15.0):
/// the White_Space property for trimming, and UTF-8 walking. Invalid UTF-8 never crashes:
/// a byte that does not start a well-formed sequence is treated as one non-whitespace
/// character.

#include <string_view>

namespace thm::detail {

/// True when `code_point` has the Unicode White_Space property (Rust's `char::is_whitespace`).
[[nodiscard]] bool is_unicode_whitespace(char32_t code_point) noexcept;

/// `text` without leading and trailing White_Space characters (Rust's `str::trim`).
[[nodiscard]] std::string_view trim(std::string_view text) noexcept;

/// `text` without trailing White_Space characters (Rust's `str::trim_end`).
[[nodiscard]] std::string_view trim_end(std::string_view text) noexcept;

/// True when `text` is empty after `trim`.
[[nodiscard]] inline bool is_blank(std::string_view text) noexcept { return trim(text).empty(); }

}  // namespace thm::detail
