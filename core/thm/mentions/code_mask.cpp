#include "thm/mentions/code_mask.hpp"

#include <algorithm>
#include <map>
#include <optional>

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

bool is_ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
         (c >= '{' && c <= '~');
}

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
  return hashes >= 1 && hashes <= 6 && (hashes == text->size() || (*text)[hashes] == ' ');
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

// Inline code spans of one paragraph or heading, `[begin, end)` of the body. A closer is
// found through an index of backtick runs by length, so the scan stays linear.
void add_code_spans(std::string_view body, std::size_t begin, std::size_t end,
                    std::vector<ByteRange>& ranges) {
  std::map<std::size_t, std::vector<std::size_t>> runs_by_length;  // raw runs; backslashes literal
  for (std::size_t i = begin; i < end;) {
    if (body[i] != '`') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < end && body[i] == '`') ++i;
    runs_by_length[i - start].push_back(start);
  }
  if (runs_by_length.empty()) return;
  std::map<std::size_t, std::size_t> cursor;  // per length: first run not yet passed

  for (std::size_t p = begin; p < end;) {
    const char c = body[p];
    if (c == '\\' && p + 1 < end && is_ascii_punctuation(body[p + 1])) {
      p += 2;  // an escaped character opens nothing
      continue;
    }
    if (c != '`') {
      ++p;
      continue;
    }
    std::size_t length = 0;
    while (p + length < end && body[p + length] == '`') ++length;
    const auto& candidates = runs_by_length[length];
    std::size_t& next = cursor[length];
    while (next < candidates.size() && candidates[next] < p + length) ++next;
    if (next < candidates.size()) {
      const std::size_t closer_end = candidates[next] + length;
      ranges.push_back({.begin = p, .end = closer_end});
      p = closer_end;
    } else {
      p += length;  // no closer: the opener is plain text
    }
  }
}

}  // namespace

std::vector<ByteRange> code_ranges(std::string_view body) {
  // The open fenced block, if any. (A plain flag rather than std::optional: g++ 12 -O3
  // reports a false -Wmaybe-uninitialized on the optional.)
  struct Fence {
    bool open = false;
    std::size_t begin = 0;
    char marker = 0;
    std::size_t run = 0;
  };
  std::vector<ByteRange> ranges;
  Fence fence;
  std::optional<ByteRange> paragraph;

  const auto end_paragraph = [&] {
    if (paragraph) add_code_spans(body, paragraph->begin, paragraph->end, ranges);
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
      fence = Fence{.open = true, .begin = line.begin, .marker = opener->marker, .run = opener->run};
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
      add_code_spans(body, line.begin, line.end, ranges);
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
  std::ranges::sort(ranges, {}, &ByteRange::begin);
  return ranges;
}

}  // namespace thm::detail
