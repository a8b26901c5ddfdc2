#pragma once
/// \file
/// One pass over a message body (SPEC §1.5 scanning): its `@`s in order, and for each whether
/// it lies in code (SPEC §1.5 masking), found 64 bytes at a time. Internal to the mentions
/// module; exposed for its tests.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "thm/mentions/code_mask.hpp"

namespace thm::detail {

/// The bytes of a 64-byte stretch of a body that scanning looks at, one bit each: bit `i`
/// stands for the stretch's byte `i`. No member initializers, so that a scan's kept masks
/// cost nothing until they are written.
struct ByteMasks {
  std::uint64_t at;            // `@`
  std::uint64_t backtick;      // `` ` ``
  std::uint64_t tilde;         // `~`
  std::uint64_t newline;       // `\n`
  std::uint64_t space_or_tab;  // ` `, `\t`
  std::uint64_t cr;            // `\r`
  friend bool operator==(const ByteMasks&, const ByteMasks&) = default;
};

/// How bytes are classified: by plain C++ (every CPU), or with AVX2 where the CPU has it.
/// Both give the same answers; the second gives them faster.
enum class ScanKernel : std::uint8_t { Portable, Avx2 };

/// The kernel scanning uses on this thread: the fastest the CPU runs, unless a
/// `PortableScan` is alive on the thread.
[[nodiscard]] ScanKernel scan_kernel() noexcept;
/// Whether `kernel` runs on this CPU (`Portable` always does).
[[nodiscard]] bool scan_kernel_runs(ScanKernel kernel) noexcept;

/// While alive, scanning on this thread uses the portable kernel: how tests and fuzzers
/// compare the two on the same input.
class PortableScan {
 public:
  PortableScan() noexcept;
  ~PortableScan();
  PortableScan(const PortableScan&) = delete;
  PortableScan& operator=(const PortableScan&) = delete;

 private:
  bool was_portable_;
};

/// The masks of the 64 bytes from `bytes` (all readable), by `kernel`, which must run here.
[[nodiscard]] ByteMasks classify(ScanKernel kernel, const char* bytes) noexcept;

/// Where a fence may open (SPEC §1.5): the first byte of each pair of backticks or of tildes
/// in a row within one stretch. A fence's marker is a run of three or more, and three in a
/// row keep a pair within one stretch wherever stretches are cut, so no pair of stretches
/// needs to be read together; a body whose pairs are not fences is only masked more.
[[nodiscard]] inline std::uint64_t fence_pairs(const ByteMasks& masks) noexcept {
  return (masks.backtick & (masks.backtick >> 1)) | (masks.tilde & (masks.tilde >> 1));
}

/// The state of the forward pass of a `BodyScan`: everything before `next` is classified; the
/// `@`s of the stretch at `stretch` not yet returned are the bits of `pending_at`. Kept apart,
/// with its steps inline, so that each kernel's pass runs over it in registers.
struct ForwardPass {
  static constexpr std::size_t kStretch = 64;

  std::size_t next = 0;
  std::size_t stretch = 0;
  std::uint64_t pending_at = 0;
  std::size_t first_fence = std::string_view::npos;  // the first possible fence passed

  /// Possible fences at these bits of the 64 bytes from `base`: all of those in the stretch
  /// at `next`, and maybe some before it.
  void note_fences(std::uint64_t at_bits, std::size_t base) noexcept {
    if (at_bits != 0 && first_fence == std::string_view::npos) {
      first_fence = base + static_cast<std::size_t>(std::countr_zero(at_bits));
    }
  }

  /// The stretch at `next`, holding these `@`s, is passed: they are pending.
  void take(std::uint64_t at) noexcept {
    pending_at = at;
    stretch = next;
    next += kStretch;  // past the body's end after its last stretch
  }
};

/// The `@`s of a body in order, and whether each lies in code: the answers of a lookup in
/// `code_ranges(body)`, computed from as little of the body as will do. One forward pass
/// finds the `@`s and notes every run of three backticks or tildes (a possible fence) it
/// passes; the bytes between the rare ones are skipped 128 at a time. Asked about an `@`,
/// the mask first reads what lies behind it in its block (back to the blank line before
/// it, a stretch of 64 bytes at a time, not line by line): code there needs a fence before
/// it, a backtick before it in its block, or its line to open with a space or a tab, and
/// most `@`s have none of the three. Only then is the block classified (on through the
/// blank line after it), or the whole body, once, when a possible fence comes first.
/// Borrows `body`; allocates only to hold the code ranges of a block it classifies.
class BodyScan {
 public:
  explicit BodyScan(std::string_view body) noexcept;

  /// The offset of the next `@` of the body, or `std::string_view::npos` after the last.
  [[nodiscard]] std::size_t next_at() noexcept;

  /// True when the `@` at `offset` lies in code. Precondition: `offset` was returned by
  /// `next_at`, and is not smaller than in the previous call.
  [[nodiscard]] bool in_code(std::size_t offset);

 private:
  // What lies before an `@` in its block: where the block starts, whether a backtick lies
  // between, and whether the `@`'s line opens with a space or a tab.
  struct Behind {
    std::size_t begin = 0;
    bool backtick = false;
    bool indented = false;
  };
  void advance_portable() noexcept;
  void take_stretch() noexcept;
  [[nodiscard]] const ByteMasks& masks_at(std::size_t begin) const noexcept;
  [[nodiscard]] Behind look_behind(std::size_t offset) const noexcept;
  [[nodiscard]] Behind behind(std::size_t begin, bool backtick,
                              std::size_t line_start) const noexcept;
  [[nodiscard]] std::size_t block_end(std::size_t offset) const noexcept;
  [[nodiscard]] bool clear_between(std::size_t clear, std::size_t offset) const noexcept;
  void mask_whole();
  void mask_block(std::size_t begin, std::size_t end);

  std::string_view body_;
  ScanKernel kernel_;
  ForwardPass pass_;
  // The masks read so far: of the first stretches (bit i of near_filled_: near_[i] is set),
  // and of the last one read past them.
  mutable std::array<ByteMasks, 8> near_;
  mutable std::uint8_t near_filled_ = 0;
  mutable std::size_t far_begin_ = std::string_view::npos;
  mutable ByteMasks far_;
  // The portable pass: where each of `@`, backtick and tilde next occurs (npos: not looked
  // for yet).
  std::array<std::size_t, 3> next_rare_{std::string_view::npos, std::string_view::npos,
                                        std::string_view::npos};
  // The last `@` found clear (nothing behind it in its block that code needs), and where its
  // block starts: the look behind the next `@` stops there.
  std::size_t last_clear_ = std::string_view::npos;
  std::size_t last_clear_begin_ = 0;
  // The code ranges of the block that ends at window_end_ (of the whole body once whole_),
  // and the first of them not yet passed.
  bool whole_ = false;
  std::size_t window_end_ = 0;
  std::vector<ByteRange> ranges_;
  std::size_t next_range_ = 0;
  SpanScratch scratch_;
};

}  // namespace thm::detail
