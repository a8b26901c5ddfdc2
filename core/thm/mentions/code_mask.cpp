#include "thm/mentions/code_mask.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

namespace thm::detail {
namespace {

// One line of the body: [begin, end) without its `\n`, `content_end` also without the `\r`
// of a CRLF, and `next` where the following line starts.
struct Line {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t content_end = 0;
  std::size_t next = 0;
};

Line line_at(std::string_view body, std::size_t begin) {
  const std::size_t newline = body.find('\n', begin);
  Line line{.begin = begin};
  line.end = newline == std::string_view::npos ? body.size() : newline;
  line.next = newline == std::string_view::npos ? body.size() : newline + 1;
  line.content_end = line.end;
  if (newline != std::string_view::npos && line.end > begin && body[line.end - 1] == '\r') {
    --line.content_end;
  }
  return line;
}

bool is_space_or_tab(char c) { return c == ' ' || c == '\t'; }

class LineView {
 public:
  LineView(std::string_view body, const Line& line)
      : text_(body.substr(line.begin, line.content_end - line.begin)) {}

  [[nodiscard]] bool blank() const { return std::ranges::all_of(text_, is_space_or_tab); }

  // Columns of leading indentation, a tab advancing to the next multiple of four.
  [[nodiscard]] std::size_t indent_columns() const {
    std::size_t columns = 0;
    for (const char c : text_) {
      if (c == ' ') {
        ++columns;
      } else if (c == '\t') {
        columns += 4 - columns % 4;
      } else {
        break;
      }
    }
    return columns;
  }

  // The text after at most three leading spaces (tabs are not stripped), or nothing when
  // there are four or more.
  [[nodiscard]] std::optional<std::string_view> after_up_to_three_spaces() const {
    const std::size_t spaces = std::min(text_.find_first_not_of(' '), text_.size());
    if (spaces > 3) return std::nullopt;
    return text_.substr(spaces);
  }

  [[nodiscard]] std::string_view text() const { return text_; }

 private:
  std::string_view text_;
};

struct FenceMarker {
  char marker = 0;
  std::size_t run = 0;
  std::string_view rest{};  // the line after the run
};

std::optional<FenceMarker> fence_marker(const LineView& line) {
  const auto text = line.after_up_to_three_spaces();
  if (!text || text->empty() || (text->front() != '`' && text->front() != '~')) return std::nullopt;
  const char marker = text->front();
  const std::size_t run = std::min(text->find_first_not_of(marker), text->size());
  if (run < 3) return std::nullopt;
  return FenceMarker{.marker = marker, .run = run, .rest = text->substr(run)};
}

bool is_atx_heading(const LineView& line) {
  const auto text = line.after_up_to_three_spaces();
  if (!text) return false;
  const std::size_t hashes = std::min(text->find_first_not_of('#'), text->size());
  return hashes >= 1 && hashes <= 6 &&
         (hashes == text->size() || (*text)[hashes] == ' ' || (*text)[hashes] == '\t');
}

bool is_thematic_break(const LineView& line) {
  const auto text = line.after_up_to_three_spaces();
  if (!text || text->empty()) return false;
  const char marker = text->front();
  if (marker != '*' && marker != '-' && marker != '_') return false;
  std::size_t count = 0;
  for (const char c : *text) {
    if (c == marker) {
      ++count;
    } else if (!is_space_or_tab(c)) {
      return false;
    }
  }
  return count >= 3;
}

bool is_setext_underline(const LineView& line) {
  const auto text = line.after_up_to_three_spaces();
  if (!text || text->empty() || (text->front() != '=' && text->front() != '-')) return false;
  const std::size_t run = std::min(text->find_first_not_of(text->front()), text->size());
  return std::ranges::all_of(text->substr(run), is_space_or_tab);
}

// The backtick runs of `[begin, end)` of the body, in order, found with `find` (memchr)
// rather than by testing every byte.
void find_backtick_runs(std::string_view body, std::size_t begin, std::size_t end,
                        std::vector<BacktickRun>& runs) {
  runs.clear();
  if (runs.capacity() == 0) runs.reserve(16);  // one block for what most paragraphs hold
  const std::string_view text = body.substr(0, end);
  for (std::size_t i = text.find('`', begin); i != std::string_view::npos; i = text.find('`', i)) {
    const std::size_t start = i;
    i = std::min(text.find_first_not_of('`', i), end);
    runs.push_back({.begin = start, .length = i - start});
  }
}

// CommonMark escapes: `\` before ASCII punctuation escapes that one character. `\` and
// the backtick are both punctuation, so backslashes pair up (`\\` is a literal backslash)
// and a backtick is escaped exactly when an odd number of backslashes end just before it.
// Counting stops at `scan_begin`, where the scan for openers (re)started: that is the block
// start or just after a backtick, so the whole backslash run lies after it.
bool is_escaped(std::string_view body, std::size_t scan_begin, std::size_t at) {
  std::size_t backslashes = 0;
  while (at - backslashes > scan_begin && body[at - backslashes - 1] == '\\') ++backslashes;
  return backslashes % 2 == 1;
}

// The closers of a paragraph's backtick runs (`runs`, in order): the first run of exactly a
// length that starts at or after a place. A few runs, as most paragraphs have, are searched
// in order from the opener's; more go through an index of runs by length in which each is
// passed once (openers only move forward): O(runs log runs) with no quadratic case.
class Closers {
 public:
  static constexpr std::size_t kFew = 16;

  Closers(const std::vector<BacktickRun>& runs, SpanScratch& scratch)
      : runs_(runs), by_length_(scratch.by_length), passed_(scratch.passed) {
    if (runs.size() <= kFew) return;
    // The runs ordered by length, then position: the candidate closers of one length are a
    // block of it, and `passed_[i]` counts the ones of the block starting at `i` that lie
    // behind the scan.
    by_length_.assign(runs.begin(), runs.end());
    std::ranges::stable_sort(by_length_, {}, &BacktickRun::length);
    passed_.assign(by_length_.size(), 0);
  }

  // The first closer of exactly `length` backticks that starts at or after `from`, among the
  // runs from index `after` on.
  [[nodiscard]] std::optional<std::size_t> find(std::size_t length, std::size_t from,
                                                std::size_t after) {
    if (runs_.size() <= kFew) {
      for (std::size_t i = after; i < runs_.size(); ++i) {
        if (runs_[i].length == length && runs_[i].begin >= from) return runs_[i].begin;
      }
      return std::nullopt;
    }
    const auto block = std::ranges::lower_bound(by_length_, length, {}, &BacktickRun::length);
    const auto first = static_cast<std::size_t>(block - by_length_.begin());
    const auto in_block = [&](std::size_t i) {
      return i < by_length_.size() && by_length_[i].length == length;
    };
    if (!in_block(first)) return std::nullopt;  // no run of that length
    std::size_t& next = passed_[first];
    while (in_block(first + next) && by_length_[first + next].begin < from) ++next;
    if (!in_block(first + next)) return std::nullopt;
    return by_length_[first + next].begin;
  }

 private:
  const std::vector<BacktickRun>& runs_;
  std::vector<BacktickRun>& by_length_;
  std::vector<std::size_t>& passed_;
};

// Inline code spans of one paragraph or heading, `[begin, end)` of the body. Openers are
// read left to right (backslash escapes apply outside spans only); a closer is the next raw
// run of exactly the opener's length (backslashes are literal there), found by `Closers`
// after one memchr pass for the runs.
void add_code_spans(std::string_view body, std::size_t begin, std::size_t end,
                    std::vector<ByteRange>& ranges, SpanScratch& scratch) {
  std::vector<BacktickRun>& runs = scratch.runs;
  find_backtick_runs(body, begin, end, runs);
  if (runs.size() < 2) return;  // a span needs an opening run and a later closing one
  Closers closers(runs, scratch);
  std::size_t p = begin;  // where the scan for openers stands; never inside a span
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const BacktickRun& run = runs[i];
    if (run.begin < p) continue;  // inside the last span (spans end at the end of a run)
    std::size_t opener = run.begin;
    std::size_t length = run.length;
    if (is_escaped(body, p, opener)) {  // the first tick is text; the rest may still open
      ++opener;
      --length;
      if (length == 0) {
        p = opener;
        continue;
      }
    }
    if (const auto closer_begin = closers.find(length, opener + length, i + 1)) {
      const std::size_t closer_end = *closer_begin + length;
      ranges.push_back({.begin = opener, .end = closer_end});
      p = closer_end;
    } else {
      p = opener + length;  // no closer: the opener is plain text
    }
  }
}

}  // namespace

std::vector<ByteRange> code_ranges(std::string_view body) {
  std::vector<ByteRange> ranges;
  SpanScratch scratch;
  append_code_ranges(body, ranges, scratch);
  return ranges;
}

void append_code_ranges(std::string_view body, std::vector<ByteRange>& ranges,
                        SpanScratch& scratch) {
  // The open fenced block, if any. (A plain flag rather than std::optional: g++ 12 -O3
  // reports a false -Wmaybe-uninitialized on the optional.)
  struct Fence {
    bool open = false;
    std::size_t begin = 0;
    char marker = 0;
    std::size_t run = 0;
  };
  const std::size_t first = ranges.size();
  Fence fence;
  std::optional<ByteRange> paragraph;

  const auto end_paragraph = [&] {
    if (paragraph) add_code_spans(body, paragraph->begin, paragraph->end, ranges, scratch);
    paragraph.reset();
  };

  for (std::size_t begin = 0; begin < body.size();) {
    const Line line = line_at(body, begin);
    begin = line.next;
    const LineView view(body, line);

    if (fence.open) {
      const auto closer = fence_marker(view);
      if (closer && closer->marker == fence.marker && closer->run >= fence.run &&
          std::ranges::all_of(closer->rest, is_space_or_tab)) {
        ranges.push_back({.begin = fence.begin, .end = line.next});
        fence.open = false;
      }
      continue;
    }
    if (view.blank()) {
      end_paragraph();
      continue;
    }
    if (const auto opener = fence_marker(view);
        opener && (opener->marker == '~' || opener->rest.find('`') == std::string_view::npos)) {
      end_paragraph();
      fence =
          Fence{.open = true, .begin = line.begin, .marker = opener->marker, .run = opener->run};
      continue;
    }
    if (view.indent_columns() >= 4) {
      if (paragraph) {
        paragraph->end = line.end;  // an indented line cannot interrupt a paragraph
      } else {
        ranges.push_back({.begin = line.begin, .end = line.next});  // indented code
      }
      continue;
    }
    if (is_atx_heading(view)) {
      end_paragraph();
      add_code_spans(body, line.begin, line.end, ranges, scratch);
      continue;
    }
    if ((paragraph && is_setext_underline(view)) || is_thematic_break(view)) {
      end_paragraph();
      continue;
    }
    if (paragraph) {
      paragraph->end = line.end;
    } else {
      paragraph = ByteRange{.begin = line.begin, .end = line.end};
    }
  }
  if (fence.open) ranges.push_back({.begin = fence.begin, .end = body.size()});
  end_paragraph();
  std::ranges::sort(ranges.begin() + static_cast<std::ptrdiff_t>(first), ranges.end(), {},
                    &ByteRange::begin);
}

}  // namespace thm::detail
