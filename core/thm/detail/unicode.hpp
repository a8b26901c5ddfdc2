#pragma once
/// \file
/// Unicode facts the core needs (SPEC §0.7), all taken from ICU 72 (Unicode 15.0):
/// the White_Space property for trimming, and UTF-8 walking. Invalid UTF-8 never crashes:
/// a byte that does not start a well-formed sequence is treated as one non-whitespace
/// character.

#include <cstddef>
#include <string>
#include <string_view>

namespace thm::detail {

/// One decoded character: its code point (or `kInvalidCodePoint` for a byte that does not
/// start a well-formed UTF-8 sequence) and its length in bytes (1 for an invalid byte).
struct DecodedChar {
  char32_t code_point = 0;
  std::size_t length = 0;
};

/// Stands for an ill-formed byte in `DecodedChar::code_point`; has no Unicode properties.
inline constexpr char32_t kInvalidCodePoint = 0xFFFFFFFF;

/// The character that starts at byte `offset` of `text` (precondition: `offset < size`).
[[nodiscard]] DecodedChar decode_at(std::string_view text, std::size_t offset) noexcept;

/// True when `code_point` is Alphabetic or has general category Nd, Nl or No (Rust's
/// `char::is_alphanumeric`). False for `kInvalidCodePoint`.
[[nodiscard]] bool is_alphanumeric(char32_t code_point) noexcept;

/// Full Unicode lower-casing in the root locale, final sigma included (Rust's
/// `str::to_lowercase`), by ICU. Ill-formed bytes are kept as they are.
[[nodiscard]] std::string lowercase(std::string_view text);

/// True when `code_point` has the Unicode White_Space property (Rust's `char::is_whitespace`).
/// False for `kInvalidCodePoint`.
[[nodiscard]] bool is_unicode_whitespace(char32_t code_point) noexcept;

/// `text` without leading and trailing White_Space characters (Rust's `str::trim`).
[[nodiscard]] std::string_view trim(std::string_view text) noexcept;

/// `text` without trailing White_Space characters (Rust's `str::trim_end`).
[[nodiscard]] std::string_view trim_end(std::string_view text) noexcept;

/// True when `text` is empty after `trim`.
[[nodiscard]] inline bool is_blank(std::string_view text) noexcept { return trim(text).empty(); }

}  // namespace thm::detail
