#pragma once
/// \file
/// Code masking (SPEC §1.5, the normative [v2] rules): the byte ranges of a message body
/// that are code, where an `@` never starts a mention. Internal to the mentions module;
/// exposed for its tests.

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

}  // namespace thm::detail
