#include "thm/mentions/body_scan.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define THM_SCAN_AVX2 1
#include <immintrin.h>
#endif

namespace thm::detail {
namespace {

constexpr std::size_t kStretch = ForwardPass::kStretch;
constexpr std::uint64_t kAll = ~std::uint64_t{0};

// The bits below `n` (n <= 64).
constexpr std::uint64_t below(std::size_t n) noexcept {
  return n >= kStretch ? kAll : (std::uint64_t{1} << n) - 1;
}

// The highest set bit of a non-zero mask.
unsigned top(std::uint64_t bits) noexcept {
  return 63U - static_cast<unsigned>(std::countl_zero(bits));
}

// ---- the kernels -----------------------------------------------------------------------------

ByteMasks classify_portable(const char* bytes) noexcept {
  ByteMasks masks{};
  for (std::size_t i = 0; i < kStretch; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    switch (bytes[i]) {
      case '@':
        masks.at |= bit;
        break;
      case '`':
        masks.backtick |= bit;
        break;
      case '~':
        masks.tilde |= bit;
        break;
      case '\n':
        masks.newline |= bit;
        break;
      case ' ':
      case '\t':
        masks.space_or_tab |= bit;
        break;
      case '\r':
        masks.cr |= bit;
        break;
      default:
        break;
    }
  }
  return masks;
}

#if THM_SCAN_AVX2
__attribute__((target("avx2"))) inline __m256i load(const char* bytes) noexcept {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes));
}

__attribute__((target("avx2"))) inline std::uint64_t equal_bits(__m256i low, __m256i high,
                                                                char byte) noexcept {
  const __m256i wanted = _mm256_set1_epi8(byte);
  const auto low_bits =
      static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(low, wanted)));
  const auto high_bits =
      static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(high, wanted)));
  return low_bits | (std::uint64_t{high_bits} << 32);
}

// Written field by field into `out`, where it is kept: a struct returned through memory and
// copied would be read 16 bytes at a time from 8-byte stores, which the CPU cannot forward.
__attribute__((target("avx2"))) void classify_avx2(const char* bytes, ByteMasks& out) noexcept {
  const __m256i low = load(bytes);
  const __m256i high = load(bytes + 32);
  out.at = equal_bits(low, high, '@');
  out.backtick = equal_bits(low, high, '`');
  out.tilde = equal_bits(low, high, '~');
  out.newline = equal_bits(low, high, '\n');
  out.space_or_tab = equal_bits(low, high, ' ') | equal_bits(low, high, '\t');
  out.cr = equal_bits(low, high, '\r');
}

// Non-zero 16-bit words that are two backticks or two tildes: every run of three holds one
// at an even offset.
__attribute__((target("avx2"))) inline __m256i even_pairs(__m256i bytes) noexcept {
  return _mm256_or_si256(_mm256_cmpeq_epi16(bytes, _mm256_set1_epi16(0x6060)),
                         _mm256_cmpeq_epi16(bytes, _mm256_set1_epi16(0x7E7E)));
}

// Non-zero bytes where the pass must stop: an `@`, or a pair that may open a fence.
__attribute__((target("avx2"))) inline __m256i stops(__m256i bytes) noexcept {
  return _mm256_or_si256(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8('@')), even_pairs(bytes));
}

__attribute__((target("avx2"))) inline std::uint64_t bits(__m256i low, __m256i high) noexcept {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(low)) |
         (std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(high))} << 32);
}

// The `@`s and possible fences of the last stretch, `body.size() - next < 128` bytes from
// `next`: read whole when 64 bytes are left, else as the body's last 64 bytes shifted into
// place (its pairs are the body's, already passed or not), or, in a body shorter than 64
// bytes, from a copy.
__attribute__((target("avx2"))) void last_stretches_avx2(ForwardPass& pass,
                                                         std::string_view body) noexcept {
  const __m256i at = _mm256_set1_epi8('@');
  while (pass.next < body.size() && pass.pending_at == 0) {
    const std::size_t left = body.size() - pass.next;
    std::array<char, kStretch> copy;  // NOLINT: written before it is read, when it is
    const char* bytes = body.data() + pass.next;
    std::size_t shift = 0;
    if (left < kStretch && body.size() >= kStretch) {
      shift = kStretch - left;
      bytes -= shift;
    } else if (left < kStretch) {
      copy.fill('\0');
      std::memcpy(copy.data(), bytes, left);
      bytes = copy.data();
    }
    const __m256i low = load(bytes);
    const __m256i high = load(bytes + 32);
    pass.note_fences(bits(even_pairs(low), even_pairs(high)), pass.next - shift);
    pass.take(bits(_mm256_cmpeq_epi8(low, at), _mm256_cmpeq_epi8(high, at)) >> shift);
  }
}

// The forward pass with AVX2: 128 bytes at a time while they hold no `@` and no pair of
// backticks or tildes at an even offset (from `next`, which moves in stretches of 64), then
// the `@`s and pairs of its two stretches, noted without leaving the loop; the last bytes
// as `last_stretches_avx2` reads them. Ends with `@`s pending or at the body's end.
__attribute__((target("avx2"))) void advance_avx2(ForwardPass& shared,
                                                  std::string_view body) noexcept {
  ForwardPass pass = shared;  // a local copy, kept in registers (the body's bytes may alias it)
  const __m256i at = _mm256_set1_epi8('@');
  while (pass.next + 2 * kStretch <= body.size()) {
    const char* bytes = body.data() + pass.next;
    const __m256i any =
        _mm256_or_si256(_mm256_or_si256(stops(load(bytes)), stops(load(bytes + 32))),
                        _mm256_or_si256(stops(load(bytes + 64)), stops(load(bytes + 96))));
    if (_mm256_testz_si256(any, any)) {
      pass.next += 2 * kStretch;
      continue;
    }
    for (std::size_t half = 0; half < 2 && pass.pending_at == 0; ++half) {
      const __m256i low = load(bytes + half * kStretch);
      const __m256i high = load(bytes + half * kStretch + 32);
      pass.note_fences(bits(even_pairs(low), even_pairs(high)), pass.next);
      pass.take(bits(_mm256_cmpeq_epi8(low, at), _mm256_cmpeq_epi8(high, at)));
    }
    if (pass.pending_at != 0) break;
  }
  if (pass.pending_at == 0) last_stretches_avx2(pass, body);
  shared = pass;
}

bool avx2_runs() noexcept {
  static const bool runs = __builtin_cpu_supports("avx2");
  return runs;
}
#else
bool avx2_runs() noexcept { return false; }
#endif

void classify_into(ScanKernel kernel, const char* bytes, ByteMasks& out) noexcept {
#if THM_SCAN_AVX2
  if (kernel == ScanKernel::Avx2) {
    classify_avx2(bytes, out);
    return;
  }
#endif
  (void)kernel;
  out = classify_portable(bytes);
}

thread_local bool portable_forced = false;

}  // namespace

ScanKernel scan_kernel() noexcept {
  return !portable_forced && avx2_runs() ? ScanKernel::Avx2 : ScanKernel::Portable;
}

bool scan_kernel_runs(ScanKernel kernel) noexcept {
  return kernel == ScanKernel::Portable || avx2_runs();
}

PortableScan::PortableScan() noexcept : was_portable_(std::exchange(portable_forced, true)) {}
PortableScan::~PortableScan() { portable_forced = was_portable_; }

ByteMasks classify(ScanKernel kernel, const char* bytes) noexcept {
  ByteMasks masks{};
  classify_into(kernel, bytes, masks);
  return masks;
}

// ---- the forward pass ----------------------------------------------------------------------

BodyScan::BodyScan(std::string_view body) noexcept : body_(body), kernel_(scan_kernel()) {}

// The masks of the stretch at `begin` (a multiple of 64), kept: the pass, the look behind an
// `@` and the block after it mostly read the same stretches. Those of a message's first
// 512 bytes are kept each in its place, the rest one at a time.
const ByteMasks& BodyScan::masks_at(std::size_t begin) const noexcept {
  const std::size_t index = begin / kStretch;
  const bool near = index < near_.size();
  if (near && (near_filled_ >> index & 1U) != 0) return near_[index];
  if (!near && begin == far_begin_) return far_;
  ByteMasks& masks = near ? near_[index] : far_;
  if (begin + kStretch <= body_.size()) {
    classify_into(kernel_, body_.data() + begin, masks);
  } else {
    std::array<char, kStretch> tail{};  // NUL is none of the bytes classified
    std::memcpy(tail.data(), body_.data() + begin, body_.size() - begin);
    classify_into(kernel_, tail.data(), masks);
  }
  if (near) {
    near_filled_ = static_cast<std::uint8_t>(near_filled_ | (1U << index));
  } else {
    far_begin_ = begin;
  }
  return masks;
}

// The portable pass: each rare byte's next occurrence found by memchr (glibc's is vectorized
// on every CPU it supports) and kept until the pass is past it; the stretch holding the
// nearest is classified.
void BodyScan::advance_portable() noexcept {
  const std::size_t size = body_.size();
  std::size_t nearest = size;
  constexpr std::array<char, 3> kRare = {'@', '`', '~'};
  for (std::size_t i = 0; i < kRare.size(); ++i) {
    std::size_t& at = next_rare_[i];
    if (at == std::string_view::npos || at < pass_.next) {
      at = std::min(body_.find(kRare[i], pass_.next), size);
    }
    nearest = std::min(nearest, at);
  }
  if (nearest == size) {
    pass_.next = size;
    return;
  }
  pass_.next += (nearest - pass_.next) / kStretch * kStretch;
  take_stretch();
}

// The stretch at `pass_.next`, classified whole (the last one, shorter, through a copy).
void BodyScan::take_stretch() noexcept {
  const ByteMasks& masks = masks_at(pass_.next);
  pass_.note_fences(fence_pairs(masks), pass_.next);
  pass_.take(masks.at);
}

std::size_t BodyScan::next_at() noexcept {
  while (pass_.pending_at == 0) {
    if (pass_.next >= body_.size()) return std::string_view::npos;
#if THM_SCAN_AVX2
    if (kernel_ == ScanKernel::Avx2) {
      advance_avx2(pass_, body_);
      continue;
    }
#endif
    advance_portable();
  }
  const auto bit = static_cast<std::size_t>(std::countr_zero(pass_.pending_at));
  pass_.pending_at &= pass_.pending_at - 1;
  return pass_.stretch + bit;
}

// ---- the mask ----------------------------------------------------------------------------

namespace {

// The bytes of the stretch at `begin` that make a line other than blank (SPEC §1.5: a blank
// line holds spaces and tabs, and may end in a CR before its LF), among its first `length`.
std::uint64_t line_content(const ByteMasks& masks, std::size_t length, bool newline_next) noexcept {
  const std::uint64_t cr_ending_line =
      masks.cr & ((masks.newline >> 1) | (std::uint64_t{newline_next} << 63));
  return below(length) & ~(masks.space_or_tab | masks.newline | cr_ending_line);
}

}  // namespace

// The end of the block after the `@` at `offset`: just after the first blank line after its
// line, or the body's end. Read a stretch at a time: a newline ends a blank line when no
// content lies since the one before.
std::size_t BodyScan::block_end(std::size_t offset) const noexcept {
  bool line_has_content = true;  // the line of `offset` holds its `@`
  for (std::size_t begin = offset / kStretch * kStretch; begin < body_.size(); begin += kStretch) {
    const ByteMasks& masks = masks_at(begin);
    const std::size_t length = std::min(kStretch, body_.size() - begin);
    const bool newline_next =
        length == kStretch && begin + kStretch < body_.size() && body_[begin + kStretch] == '\n';
    const std::uint64_t after = ~below(offset > begin ? offset - begin : 0);
    const std::uint64_t content = line_content(masks, length, newline_next) & after;
    std::size_t line_from = 0;
    for (std::uint64_t newlines = masks.newline & after; newlines != 0; newlines &= newlines - 1) {
      const auto at = static_cast<std::size_t>(std::countr_zero(newlines));
      if (!line_has_content && (content & below(at) & ~below(line_from)) == 0) {
        return begin + at + 1;
      }
      line_has_content = false;
      line_from = at + 1;
    }
    if ((content & ~below(line_from)) != 0) line_has_content = true;
  }
  return body_.size();
}

// What lies before the `@` at `offset` in its block: back to just after the last blank line
// before its line, or the body's start, or back to the last clear `@` if no blank line comes
// first (nothing before it in the block needs code). Read a stretch at a time from
// the right: `pending` is a newline whose line (to its left) is being read, which is blank
// when the first newline or content to its left is a newline, or the body's start.
BodyScan::Behind BodyScan::look_behind(std::size_t offset) const noexcept {
  const std::size_t stop = last_clear_ == std::string_view::npos ? 0 : last_clear_ + 1;
  std::size_t pending = std::string_view::npos;
  std::size_t line_start = std::string_view::npos;  // of the `@`'s line, once seen
  bool backtick = false;
  for (std::size_t end = offset; end > stop;) {
    const std::size_t begin = (end - 1) / kStretch * kStretch;
    const ByteMasks& masks = masks_at(begin);
    const bool newline_next = end - begin == kStretch && body_[end] == '\n';
    const std::uint64_t range = below(end - begin) & ~below(std::max(begin, stop) - begin);
    std::uint64_t newlines = masks.newline & range;
    if (newlines == 0 && pending == std::string_view::npos) {  // all on the `@`'s line
      backtick = backtick || (masks.backtick & range) != 0;
      end = std::max(begin, stop);
      continue;
    }
    std::uint64_t content = line_content(masks, kStretch, newline_next) & range;
    std::size_t found = std::string_view::npos;
    while (found == std::string_view::npos && (newlines | content) != 0) {
      if (pending == std::string_view::npos) {
        if (newlines == 0) break;
        const unsigned at = top(newlines);
        pending = begin + at;
        if (line_start == std::string_view::npos) line_start = pending + 1;
        newlines &= below(at);
        content &= below(at);
      } else if (newlines != 0 && (content == 0 || top(newlines) > top(content))) {
        found = pending + 1;
      } else {
        const unsigned at = top(content);  // the pending line is not blank
        newlines &= below(at);
        content &= below(at);
        pending = std::string_view::npos;
      }
    }
    const std::size_t from = found == std::string_view::npos ? 0 : found - begin;
    backtick = backtick || (masks.backtick & range & ~below(from)) != 0;
    if (found != std::string_view::npos) return behind(found, backtick, line_start);
    end = std::max(begin, stop);
  }
  if (stop > 0) {  // back at the last clear `@`, in its block: nothing behind it needs code
    return line_start == std::string_view::npos
               ? Behind{.begin = last_clear_begin_, .backtick = backtick, .indented = false}
               : behind(last_clear_begin_, backtick, line_start);
  }
  // At the body's start: its first line is blank when a newline is pending.
  return behind(pending == std::string_view::npos ? 0 : pending + 1, backtick,
                line_start == std::string_view::npos ? 0 : line_start);
}

BodyScan::Behind BodyScan::behind(std::size_t begin, bool backtick,
                                  std::size_t line_start) const noexcept {
  const char opening = body_[line_start];
  return Behind{
      .begin = begin, .backtick = backtick, .indented = opening == ' ' || opening == '\t'};
}

void BodyScan::mask_whole() {
  whole_ = true;
  ranges_.clear();
  if (ranges_.capacity() == 0) ranges_.reserve(8);  // one block for most bodies' ranges
  append_code_ranges(body_, ranges_, scratch_);
  next_range_ = 0;
}

// Classifies the block [begin, end) into `ranges_`, the window the next offsets are asked in.
void BodyScan::mask_block(std::size_t begin, std::size_t end) {
  window_end_ = end;
  ranges_.clear();
  if (ranges_.capacity() == 0) ranges_.reserve(8);
  next_range_ = 0;
  append_code_ranges(body_.substr(begin, end - begin), ranges_, scratch_);
  for (ByteRange& range : ranges_) {
    range.begin += begin;
    range.end += begin;
  }
}

// Code at an `@` is a fenced block (which needs a fence before it), an indented line (which
// needs its line to open with a space or a tab) or a span (which needs a backtick before it
// in its block): with none of the three the answer is no, from what lies behind alone, and
// for the `@`s after a clear one, from what lies between. With a possible fence before the
// `@`, the body is masked whole, once. Otherwise its block is
// classified: with no fence open at the block's start the mask stands there as at the body's
// (a blank line closes the paragraph, the only other thing left open), and nothing after the
// block's end changes what lies before it, so its ranges are the whole body's there, a fence
// that opens inside the block included; an `@` past the block sees that fence before it.
bool BodyScan::in_code(std::size_t offset) {
  if (!whole_ && offset >= window_end_) {
    if (pass_.first_fence < offset) {
      mask_whole();
    } else if (last_clear_ != std::string_view::npos && clear_between(last_clear_, offset)) {
      last_clear_ = offset;  // its block starts at or after last_clear_begin_: still a clean start
      return false;
    } else {
      const Behind before = look_behind(offset);
      if (!before.backtick && !before.indented) {
        last_clear_ = offset;
        last_clear_begin_ = before.begin;
        return false;
      }
      mask_block(before.begin, block_end(offset));
    }
  }
  while (next_range_ < ranges_.size() && ranges_[next_range_].end <= offset) ++next_range_;
  return next_range_ < ranges_.size() && ranges_[next_range_].begin <= offset;
}

// Whether the `@` at `offset` is clear because the one at `clear` is and nothing code needs
// lies between (no fence before either is known): no backtick, and no line that opens with
// a space or a tab. Read in the stretches between when they are few; else the look behind
// answers.
bool BodyScan::clear_between(std::size_t clear, std::size_t offset) const noexcept {
  const std::size_t first = clear / kStretch * kStretch;
  if (offset - first >= 3 * kStretch) return false;
  std::uint64_t line_start = 0;  // whether a line starts at the stretch's first byte
  for (std::size_t begin = first; begin <= offset; begin += kStretch) {
    const ByteMasks& masks = masks_at(begin);
    const std::uint64_t starts = (masks.newline << 1) | line_start;
    const std::uint64_t between = ~below(begin == first ? clear - begin + 1 : 0) &
                                  below(std::min(offset - begin + 1, kStretch));
    if (((masks.backtick | (starts & masks.space_or_tab)) & between) != 0) return false;
    line_start = masks.newline >> 63;
  }
  return true;
}

}  // namespace thm::detail
