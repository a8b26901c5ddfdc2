#pragma once
/// \file
/// Code masking (SPEC §1.5, the normative [v2] rules): the byte ranges of a message body
/// that are code, where an `@` never starts a mention. Internal to the mentions module
/// (`BodyScan` asks it block by block); exposed for its tests.

#include <cstddef>
#include <string_view>
#include <vector>

namespace thm::detail {

/// A half-open byte range `[begin, end)` of a body.
struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

/// The code ranges of `body`, sorted by `begin` and disjoint: fenced blocks (an unclosed
/// fence runs to the end of the body), indented code lines, and inline code spans. Lines
/// end at `\n`; a `\r` right before it is ignored when a line is classified. Containers
/// (lists, block quotes) and HTML blocks are not modelled: their markers are plain text.
/// Linear in the body's length.
[[nodiscard]] std::vector<ByteRange> code_ranges(std::string_view body);

/// A maximal run of backticks: `length` of them from `begin`.
struct BacktickRun {
  std::size_t begin = 0;
  std::size_t length = 0;
};

/// The buffers `append_code_ranges` fills while it finds the code spans of a block, kept
/// from one call to the next so that masking block after block allocates only when a
/// block has more backtick runs than any before it.
struct SpanScratch {
  std::vector<BacktickRun> runs;
  std::vector<BacktickRun> by_length;
  std::vector<std::size_t> passed;
};

/// `code_ranges(body)` appended to `ranges`, with `scratch` for the work between.
void append_code_ranges(std::string_view body, std::vector<ByteRange>& ranges,
                        SpanScratch& scratch);

}  // namespace thm::detail
