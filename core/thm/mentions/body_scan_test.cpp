#include "thm/mentions/body_scan.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace thm::detail {
namespace {

// The kernels this CPU runs: the portable one, and AVX2 where it runs.
std::vector<ScanKernel> kernels() {
  std::vector<ScanKernel> runs{ScanKernel::Portable};
  if (scan_kernel_runs(ScanKernel::Avx2)) runs.push_back(ScanKernel::Avx2);
  return runs;
}

// Bodies drawn from `bytes` by a fixed linear congruential sequence, up to `longest` bytes.
class Bodies {
 public:
  Bodies(std::string_view bytes, std::size_t longest) : bytes_(bytes), longest_(longest) {}
  std::string next() {
    std::string body;
    const std::size_t length = draw() % (longest_ + 1);
    for (std::size_t i = 0; i < length; ++i) body += bytes_[draw() % bytes_.size()];
    return body;
  }

 private:
  std::uint32_t draw() {
    state_ = state_ * 1664525U + 1013904223U;
    return state_ >> 8;
  }
  std::string_view bytes_;
  std::size_t longest_;
  std::uint32_t state_ = 20240601;
};

TEST(BodyScanTest, KernelsClassifyAlike) {
  Bodies bodies("@`~\n \t\r^`x\x80\xff\0", 64);
  for (int round = 0; round < 20000; ++round) {
    std::string stretch = bodies.next();
    stretch.resize(64, 'x');
    const ByteMasks portable = classify(ScanKernel::Portable, stretch.data());
    for (const ScanKernel kernel : kernels()) {
      ASSERT_EQ(classify(kernel, stretch.data()), portable) << stretch;
    }
    for (std::size_t i = 0; i < 64; ++i) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      ASSERT_EQ((portable.at & bit) != 0, stretch[i] == '@');
      ASSERT_EQ((portable.newline & bit) != 0, stretch[i] == '\n');
      ASSERT_EQ((portable.space_or_tab & bit) != 0, stretch[i] == ' ' || stretch[i] == '\t');
    }
  }
}

bool in_ranges(const std::vector<ByteRange>& ranges, std::size_t offset) {
  for (const ByteRange& range : ranges) {
    if (range.begin <= offset && offset < range.end) return true;
  }
  return false;
}

// Every `@` of `body`, in order, each answered as a lookup in code_ranges, by every kernel.
void expect_scan_agrees(std::string_view body) {
  const auto ranges = code_ranges(body);
  std::vector<std::size_t> ats;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '@') ats.push_back(i);
  }
  for (const ScanKernel kernel : kernels()) {
    const bool portable = kernel == ScanKernel::Portable;
    std::optional<PortableScan> forced;
    if (portable) forced.emplace();
    BodyScan scan(body);
    for (const std::size_t expected : ats) {
      const std::size_t at = scan.next_at();
      ASSERT_EQ(at, expected) << "portable " << portable << " \"" << body << '"';
      ASSERT_EQ(scan.in_code(at), in_ranges(ranges, at))
          << "offset " << at << " portable " << portable << " of \"" << body << '"';
    }
    ASSERT_EQ(scan.next_at(), std::string_view::npos) << body;
  }
}

TEST(BodyScanTest, AnswersAsCodeRanges) {
  for (const char* body : {"",
                           "@",
                           "a `@` b\n\n`@`",
                           "`a\n\n@b`",
                           "    @\n\n@\n    @",
                           "x\n    @\n\n    @",
                           "```\n\n@\n```\n\n    @",
                           "`a\r\n\r\n@`",
                           "# `a\n@`",
                           "***\n    @",
                           "x\n===\n    @ `\n@`",
                           " \t \n\t@",
                           "@ \r\n\r\n    @",
                           "a\n \r\n    @",
                           "a\n\r \n    @",
                           "@a\n~~~\n@b",
                           "@a\n```\n@b",
                           "@a `b` @c",
                           "@a\n\n    @b",
                           "@a\n\t@b",
                           "@a ~~~\n@b",
                           "@a\n   ~~~\n\n@b\n~~~"}) {
    expect_scan_agrees(body);
  }
  Bodies bodies("`~ \t\n\r\\#-=*@a", 24);
  for (int round = 0; round < 4000; ++round) {
    expect_scan_agrees(bodies.next());
    if (HasFatalFailure()) return;
  }
}

// Blocks, runs and lines across the 64-byte stretches, with long stretches of plain text
// that the pass skips 64 or 128 bytes at a time.
TEST(BodyScanTest, AnswersAsCodeRangesAcrossStretches) {
  Bodies bodies("`~ \t\n\r@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 700);
  for (int round = 0; round < 3000; ++round) {
    expect_scan_agrees(bodies.next());
    if (HasFatalFailure()) return;
  }
  Bodies sparse("@`~\n    \n\n \t\r\n                                                    ", 700);
  for (int round = 0; round < 3000; ++round) {
    expect_scan_agrees(sparse.next());
    if (HasFatalFailure()) return;
  }
}

TEST(BodyScanTest, BlankLinesAndFencesAtEveryStretchEdge) {
  for (std::size_t pad = 0; pad < 200; ++pad) {
    const std::string text(pad, 'x');
    for (const std::string tail :
         {"\n\n    @", "\n \t \n    @", "\n \r\n    @ `a\n@`", "``\n`@\n", "~~\n~ @\n",
          "```\n@\n```\n\n@", "\n\n`@` @\n\n    @", "@\n \n    @ \n\n@", "@\n~~~\n@\n", "@x\n\n\t@",
          "@x\n\n  ```\n@"}) {
      expect_scan_agrees(text + tail);
      expect_scan_agrees(tail + text + tail);
      if (HasFatalFailure()) return;
    }
  }
}

// A fence far before the `@`, in stretches with nothing else the pass stops at.
TEST(BodyScanTest, FencesFarBeforeTheAtAreSeen) {
  for (const std::string_view marker : {"```", "~~~", " ~~~~ rust", "   ````"}) {
    for (std::size_t pad = 0; pad < 300; pad += 7) {
      const std::string plain(pad, 'x');
      expect_scan_agrees(std::string(marker) + "\n" + plain + "\n\n@x");
      expect_scan_agrees(plain + "\n" + std::string(marker) + "\n" + plain + "\n\n@x\n" + plain);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(BodyScanTest, PortableScanScopesNest) {
  const ScanKernel best = scan_kernel();
  {
    PortableScan outer;
    EXPECT_EQ(scan_kernel(), ScanKernel::Portable);
    {
      PortableScan inner;
      EXPECT_EQ(scan_kernel(), ScanKernel::Portable);
    }
    EXPECT_EQ(scan_kernel(), ScanKernel::Portable);
  }
  EXPECT_EQ(scan_kernel(), best);
}

}  // namespace
}  // namespace thm::detail
