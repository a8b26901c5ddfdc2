#include "thm/mentions/code_mask.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace thm::detail {
namespace {

// The body with every masked byte replaced by '#', to make expectations readable.
std::string masked(std::string_view body) {
  std::string out(body);
  for (const ByteRange& range : code_ranges(body)) {
    for (std::size_t i = range.begin; i < range.end; ++i) {
      if (out[i] != '\n') out[i] = '#';
    }
  }
  return out;
}

TEST(CodeMaskTest, InlineSpansOfMatchingRunLength) {
  EXPECT_EQ(masked("a `b` c"), "a ### c");
  EXPECT_EQ(masked("`` a ` b `` c"), "########### c");
  EXPECT_EQ(masked("` x `` y"), "` x `` y");  // no closer of length one
  EXPECT_EQ(masked("`a` `b"), "### `b");
}

TEST(CodeMaskTest, BackslashEscapesFollowCommonMark) {
  EXPECT_EQ(masked("\\` a \\`"), "\\` a \\`");
  EXPECT_EQ(masked("\\\\`a` b"), "\\\\### b");  // an escaped backslash escapes nothing
  EXPECT_EQ(masked("`a\\` b"), "#### b");       // inside a span backslashes are literal
  EXPECT_EQ(masked("\\``a`"), "\\`###");        // the escaped tick leaves a run of one
}

TEST(CodeMaskTest, SpansDoNotCrossParagraphBreaks) {
  EXPECT_EQ(masked("`a\n\nb`"), "`a\n\nb`");
  EXPECT_EQ(masked("`a\nb`"), "##\n##");
  EXPECT_EQ(masked("`a\n# h\nb`"), "`a\n# h\nb`");
  EXPECT_EQ(masked("`a\n***\nb`"), "`a\n***\nb`");
  EXPECT_EQ(masked("`a\n---\nb`"), "`a\n---\nb`");  // setext underline
  EXPECT_EQ(masked("`a\n===\nb`"), "`a\n===\nb`");
  EXPECT_EQ(masked("# `a` h"), "# ### h");
  // An ATX opener may be followed by a space, a tab or the end of the line (CommonMark);
  // any other byte makes the line paragraph text, which the span then crosses.
  EXPECT_EQ(masked("`a\n#\th\nb`"), "`a\n#\th\nb`");
  EXPECT_EQ(masked("`a\n#\nb`"), "`a\n#\nb`");
  EXPECT_EQ(masked("`a\n#x\nb`"), "##\n##\n##");
}

TEST(CodeMaskTest, FencedBlocks) {
  EXPECT_EQ(masked("```\ncode\n```\nafter"), "###\n####\n###\nafter");
  EXPECT_EQ(masked("~~~~ rust\nx\n~~~\n~~~~\nafter"), "#########\n#\n###\n####\nafter");
  EXPECT_EQ(masked("```\nopen"), "###\n####");  // unclosed: to the end
  EXPECT_EQ(masked("   ```\nx\n   ```\ny"), "######\n#\n######\ny");
  EXPECT_EQ(masked("    ```\nx"), "#######\nx");  // four spaces: indented code, not a fence
  EXPECT_EQ(masked("``` a`b\nx"), "``` a`b\nx");  // backtick in the info string: no fence
  EXPECT_EQ(masked("```\n``` x\n```\ny"), "###\n#####\n###\ny");  // a closer has a blank tail
  EXPECT_EQ(masked("```\n~~~\n```\ny"), "###\n###\n###\ny");
}

TEST(CodeMaskTest, SpansDoNotCrossFences) {
  EXPECT_EQ(masked("`a\n```\nx\n```\nb`"), "`a\n###\n#\n###\nb`");
}

TEST(CodeMaskTest, CrlfEndsLinesLikeLf) {
  EXPECT_EQ(masked("```\r\nx\r\n```\r\ny"), "####\n##\n####\ny");
  EXPECT_EQ(masked("`a\r\n\r\nb`"), "`a\r\n\r\nb`");
  EXPECT_EQ(masked("`a\r\r`"), "#####");       // a lone \r ends no line
  EXPECT_EQ(masked("```\rx```"), "########");  // one line: an inline span, not a fence
}

TEST(CodeMaskTest, IndentedCodeCannotInterruptAParagraph) {
  EXPECT_EQ(masked("    code\n\ntext"), "########\n\ntext");
  EXPECT_EQ(masked("text\n    more"), "text\n    more");
  EXPECT_EQ(masked("\tcode"), "#####");
  EXPECT_EQ(masked("  \tcode"), "#######");
  EXPECT_EQ(masked("# h\n    code"), "# h\n########");
  EXPECT_EQ(masked("    a\n\n    b"), "#####\n\n#####");
  EXPECT_EQ(masked("```\n```\n    c"), "###\n###\n#####");
}

TEST(CodeMaskTest, ContainerMarkersArePlainText) {
  EXPECT_EQ(masked("- a\n\n    b"), "- a\n\n#####");
  EXPECT_EQ(masked("> `q`"), "> ###");
  EXPECT_EQ(masked("1. x\n    y"), "1. x\n    y");
}

TEST(CodeMaskTest, RangesAreSortedAndDisjoint) {
  const auto ranges = code_ranges("`a` x\n\n    code\n\n```\nf\n```\n`b`");
  ASSERT_EQ(ranges.size(), 4U);
  for (std::size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].end, ranges[i].begin);
}

TEST(CodeMaskTest, BackslashRunsEscapeByParity) {
  EXPECT_EQ(masked("\\\\\\`a` b`"), "\\\\\\`a####");  // three: the first tick is escaped
  EXPECT_EQ(masked("\\\\``a`` b"), "\\\\##### b");    // two: nothing is escaped
  EXPECT_EQ(masked("\\```a`` b"), "\\`##### b");      // the rest of an escaped run opens
  EXPECT_EQ(masked("`a` \\`b`"), "### \\`b`");        // counting starts after a span
  EXPECT_EQ(masked("x\\*`a`"), "x\\*###");            // an escaped `*` escapes no tick
}

TEST(CodeMaskTest, ManyUnmatchedRunsStayFast) {
  std::string body;
  for (int n = 1; n < 400; ++n) body += std::string(static_cast<std::size_t>(n), '`') + " ";
  EXPECT_TRUE(code_ranges(body).empty());
}

}  // namespace
}  // namespace thm::detail
