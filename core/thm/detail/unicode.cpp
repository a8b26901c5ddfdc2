#include "thm/detail/unicode.hpp"

#include <unicode/ucasemap.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "thm/detail/ascii.hpp"

namespace thm::detail {
namespace {

// Length in bytes of the whitespace character that starts at `i`, or 0 if the character
// there is not whitespace (or not well-formed UTF-8).
std::size_t whitespace_length_at(std::string_view text, std::size_t i) noexcept {
  // A window of at most four bytes keeps ICU's int32 offsets small for any body size.
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data() + i);
  const auto length = static_cast<std::int32_t>(std::min<std::size_t>(text.size() - i, 4));
  std::int32_t offset = 0;
  UChar32 code_point = 0;
  U8_NEXT(bytes, offset, length, code_point);
  if (code_point < 0 || !is_unicode_whitespace(static_cast<char32_t>(code_point))) return 0;
  return static_cast<std::size_t>(offset);
}

// Start of the whitespace character that ends just before `end`, or `end` if none.
std::size_t whitespace_start_before(std::string_view text, std::size_t end) noexcept {
  const std::size_t window = std::min<std::size_t>(end, 4);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data() + (end - window));
  auto offset = static_cast<std::int32_t>(window);
  UChar32 code_point = 0;
  U8_PREV(bytes, 0, offset, code_point);
  if (code_point < 0 || !is_unicode_whitespace(static_cast<char32_t>(code_point))) return end;
  return end - window + static_cast<std::size_t>(offset);
}

}  // namespace

bool is_unicode_whitespace_non_ascii(char32_t code_point) noexcept {
  if (code_point == kInvalidCodePoint) return false;
  return u_hasBinaryProperty(static_cast<UChar32>(code_point), UCHAR_WHITE_SPACE) != 0;
}

DecodedChar decode_non_ascii_at(std::string_view text, std::size_t offset) noexcept {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data() + offset);
  const auto length = static_cast<std::int32_t>(std::min<std::size_t>(text.size() - offset, 4));
  std::int32_t end = 0;
  UChar32 code_point = 0;
  U8_NEXT(bytes, end, length, code_point);
  if (code_point < 0) return {.code_point = kInvalidCodePoint, .length = 1};
  return {.code_point = static_cast<char32_t>(code_point), .length = static_cast<std::size_t>(end)};
}

bool is_alphanumeric_non_ascii(char32_t code_point) noexcept {
  if (code_point == kInvalidCodePoint) return false;
  const auto c = static_cast<UChar32>(code_point);
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC) != 0) return true;
  const auto category = u_charType(c);
  return category == U_DECIMAL_DIGIT_NUMBER || category == U_LETTER_NUMBER ||
         category == U_OTHER_NUMBER;
}

std::string lowercase(std::string_view text) {
  // Fast path: ASCII needs no tables.
  if (std::ranges::all_of(text, [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    std::string lower(text);
    for (char& c : lower) c = ascii_lower(c);
    return lower;
  }
  UErrorCode status = U_ZERO_ERROR;
  UCaseMap* map = ucasemap_open("", 0, &status);
  std::string lower(text.size() + 16, '\0');
  const auto convert = [&] {
    return ucasemap_utf8ToLower(map, lower.data(), static_cast<std::int32_t>(lower.size()),
                                text.data(), static_cast<std::int32_t>(text.size()), &status);
  };
  std::int32_t written = convert();
  if (status == U_BUFFER_OVERFLOW_ERROR) {  // the first call reported the exact size
    status = U_ZERO_ERROR;
    lower.resize(static_cast<std::size_t>(written));
    written = convert();
  }
  if (U_SUCCESS(status)) lower.resize(static_cast<std::size_t>(written));
  ucasemap_close(map);
  if (U_FAILURE(status)) return std::string(text);  // not reached for well-sized inputs
  return lower;
}

std::string_view trim_end(std::string_view text) noexcept {
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t start = whitespace_start_before(text, end);
    if (start == end) break;
    end = start;
  }
  return text.substr(0, end);
}

std::string_view trim(std::string_view text) noexcept {
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t length = whitespace_length_at(text, begin);
    if (length == 0) break;
    begin += length;
  }
  return trim_end(text.substr(begin));
}

}  // namespace thm::detail
