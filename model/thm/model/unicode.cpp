#include "thm/model/unicode.hpp"

#include <unicode/ucasemap.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <cstdint>
#include <vector>

namespace thm::model::unicode {

Char char_at(const std::string& text, std::size_t i) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  std::int32_t at = static_cast<std::int32_t>(i);
  const std::int32_t start = at;
  UChar32 c = 0;
  U8_NEXT(bytes, at, static_cast<std::int32_t>(text.size()), c);
  if (c < 0) return {-1, 1};
  return {c, static_cast<std::size_t>(at - start)};
}

bool is_white_space(long code_point) {
  return code_point >= 0 &&
         u_hasBinaryProperty(static_cast<UChar32>(code_point), UCHAR_WHITE_SPACE);
}

bool is_alphanumeric(long code_point) {
  if (code_point < 0) return false;
  const auto c = static_cast<UChar32>(code_point);
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC)) return true;
  const auto type = u_charType(c);
  return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}

std::string to_lower(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  UCaseMap* map = ucasemap_open("", 0, &status);
  std::vector<char> out(text.size() * 3 + 8);
  const std::int32_t n =
      ucasemap_utf8ToLower(map, out.data(), static_cast<std::int32_t>(out.size()), text.data(),
                           static_cast<std::int32_t>(text.size()), &status);
  ucasemap_close(map);
  if (U_FAILURE(status)) return text;
  return std::string(out.data(), static_cast<std::size_t>(n));
}

std::string trim(const std::string& text) {
  // Split into characters, then drop white space from both ends.
  std::vector<std::pair<std::size_t, Char>> chars;
  for (std::size_t i = 0; i < text.size();) {
    const Char c = char_at(text, i);
    chars.push_back({i, c});
    i += c.length;
  }
  std::size_t first = 0;
  while (first < chars.size() && is_white_space(chars[first].second.code_point)) ++first;
  std::size_t last = chars.size();
  while (last > first && is_white_space(chars[last - 1].second.code_point)) --last;
  if (first == last) return "";
  const std::size_t begin = chars[first].first;
  const std::size_t end = chars[last - 1].first + chars[last - 1].second.length;
  return text.substr(begin, end - begin);
}

}  // namespace thm::model::unicode
