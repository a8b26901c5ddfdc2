#include "thm/detail/unicode.hpp"

#include <gtest/gtest.h>
#include <unicode/uchar.h>

#include <string>

namespace thm::detail {
namespace {

TEST(UnicodeTest, WhiteSpacePropertyComesFromIcu) {
  for (const char32_t c : {U' ', U'\t', U'\n', U'\v', U'\f', U'\r', U'\u0085', U'\u00A0', U'\u1680',
                           U'\u2000', U'\u2028', U'\u2029', U'\u202F', U'\u3000'}) {
    EXPECT_TRUE(is_unicode_whitespace(c)) << static_cast<unsigned>(c);
  }
  for (const char32_t c : {U'a', U'_', U'\u200B', U'\uFEFF', U'\u180E', U'0'}) {
    EXPECT_FALSE(is_unicode_whitespace(c)) << static_cast<unsigned>(c);
  }
}

// The ASCII fast paths answer as ICU does.
TEST(UnicodeTest, AsciiAnswersEqualIcus) {
  for (char32_t c = 0; c < 0x80; ++c) {
    const auto icu = static_cast<UChar32>(c);
    EXPECT_EQ(is_unicode_whitespace(c), u_hasBinaryProperty(icu, UCHAR_WHITE_SPACE) != 0)
        << static_cast<unsigned>(c);
    const auto category = u_charType(icu);
    const bool alphanumeric = u_hasBinaryProperty(icu, UCHAR_ALPHABETIC) != 0 ||
                              category == U_DECIMAL_DIGIT_NUMBER || category == U_LETTER_NUMBER ||
                              category == U_OTHER_NUMBER;
    EXPECT_EQ(is_alphanumeric(c), alphanumeric) << static_cast<unsigned>(c);
  }
}

// The mention alias table relies on this: a name that starts with a letter, digit or `_`
// is never blank.
TEST(UnicodeTest, NoWhiteSpaceCharacterIsAlphanumeric) {
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (is_unicode_whitespace(c)) {
      EXPECT_FALSE(is_alphanumeric(c)) << static_cast<unsigned>(c);
    }
  }
}

TEST(UnicodeTest, TrimRemovesUnicodeWhitespaceAtBothEnds) {
  EXPECT_EQ(trim("\u00A0\u3000 a b\t\u2029"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \n "), "");
  EXPECT_EQ(trim_end(" a \u00A0"), " a");
  EXPECT_TRUE(is_blank("\u2028\u2029"));
  EXPECT_FALSE(is_blank("\u200B"));
}

TEST(UnicodeTest, InvalidUtf8IsTextNotWhitespace) {
  EXPECT_EQ(trim(" \xC2 "), "\xC2");          // truncated NBSP
  EXPECT_EQ(trim("\xA0x\xA0"), "\xA0x\xA0");  // lone continuation bytes
  EXPECT_EQ(trim(std::string("\0 ", 2)), std::string("\0", 1));
  EXPECT_EQ(trim("\xE2\x80"), "\xE2\x80");
}

}  // namespace
}  // namespace thm::detail
