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

/// `decode_at` for a byte that is not ASCII.
[[nodiscard]] DecodedChar decode_non_ascii_at(std::string_view text, std::size_t offset) noexcept;

/// The character that starts at byte `offset` of `text` (precondition: `offset < size`).
/// Inline for ASCII, where a byte is its own character.
[[nodiscard]] inline DecodedChar decode_at(std::string_view text, std::size_t offset) noexcept {
  const auto byte = static_cast<unsigned char>(text[offset]);
  if (byte < 0x80) return {.code_point = byte, .length = 1};
  return decode_non_ascii_at(text, offset);
}

/// `is_alphanumeric` beyond ASCII, from ICU.
[[nodiscard]] bool is_alphanumeric_non_ascii(char32_t code_point) noexcept;

/// True when `code_point` is Alphabetic or has general category Nd, Nl or No (Rust's
/// `char::is_alphanumeric`). False for `kInvalidCodePoint`. Inline for ASCII, whose
/// Alphabetic characters are the letters and whose N* characters are the digits.
[[nodiscard]] inline bool is_alphanumeric(char32_t code_point) noexcept {
  if (code_point < 0x80) {
    return (code_point >= U'a' && code_point <= U'z') ||
           (code_point >= U'A' && code_point <= U'Z') || (code_point >= U'0' && code_point <= U'9');
  }
  return is_alphanumeric_non_ascii(code_point);
}

/// Full Unicode lower-casing in the root locale, final sigma included (Rust's
/// `str::to_lowercase`), by ICU. Ill-formed bytes are kept as they are.
[[nodiscard]] std::string lowercase(std::string_view text);

/// `is_unicode_whitespace` beyond ASCII, from ICU.
[[nodiscard]] bool is_unicode_whitespace_non_ascii(char32_t code_point) noexcept;

/// True when `code_point` has the Unicode White_Space property (Rust's `char::is_whitespace`).
/// False for `kInvalidCodePoint`. Inline for ASCII, whose White_Space characters are
/// U+0009..U+000D and U+0020.
[[nodiscard]] inline bool is_unicode_whitespace(char32_t code_point) noexcept {
  if (code_point < 0x80) return code_point == U' ' || (code_point >= U'\t' && code_point <= U'\r');
  return is_unicode_whitespace_non_ascii(code_point);
}

/// `text` without leading and trailing White_Space characters (Rust's `str::trim`).
[[nodiscard]] std::string_view trim(std::string_view text) noexcept;

/// `text` without trailing White_Space characters (Rust's `str::trim_end`).
[[nodiscard]] std::string_view trim_end(std::string_view text) noexcept;

/// True when `text` is empty after `trim`.
[[nodiscard]] inline bool is_blank(std::string_view text) noexcept { return trim(text).empty(); }

}  // namespace thm::detail
