#pragma once
/// \file
/// The alias table of SPEC §1.5 and the character classes of its tokens (internal): one
/// implementation, built per call by `resolve_mentions` on snapshot views and once by
/// `Team::prepare`.

#include <array>
#include <cstddef>
#include <cstdint>
#include <forward_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "thm/desks/desks.hpp"
#include "thm/detail/flat_index.hpp"
#include "thm/detail/unicode.hpp"
#include "thm/mentions/types.hpp"
#include "thm/roster/roster.hpp"

namespace thm::detail {

/// SPEC §1.5 token step 3: an alias ends at White_Space or at one of these.
inline constexpr std::string_view kTerminatingPunctuation = ",;.?!:)]}'\"";

/// The ASCII terminators as a table: the punctuation above and ASCII's White_Space
/// characters (U+0009..U+000D, U+0020).
inline constexpr std::array<bool, 0x80> kAsciiTerminators = [] {
  std::array<bool, 0x80> table{};
  for (const char c : kTerminatingPunctuation) table[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view(" \t\n\v\f\r")) table[static_cast<std::size_t>(c)] = true;
  return table;
}();

/// True when `c` ends an alias (SPEC §1.5): no terminating punctuation is beyond ASCII.
[[nodiscard]] inline bool is_terminator(char32_t c) noexcept {
  if (c < 0x80) return kAsciiTerminators[c];
  return is_unicode_whitespace(c);
}

/// True when an alias may start with `c` (SPEC §1.5 token step 2): `_`, a letter or a digit.
[[nodiscard]] inline bool starts_alias(char32_t c) noexcept {
  return c == U'_' || is_alphanumeric(c);
}

/// Who an alias names (SPEC §1.5 `extract_at`), as a position in the snapshots: an active
/// agent (index into `Roster::members()`), a person (into `people()`), a desk (into the
/// declared-then-added desks) or everyone. Packed in 32 bits so that a table entry stays
/// small.
class AliasTarget {
 public:
  enum class Kind : std::uint8_t { Agent, Person, Desk, Everyone };

  constexpr AliasTarget(Kind kind, std::uint32_t index) noexcept
      : packed_((static_cast<std::uint32_t>(kind) << 30) | index) {}

  [[nodiscard]] constexpr Kind kind() const noexcept { return static_cast<Kind>(packed_ >> 30); }
  [[nodiscard]] constexpr std::uint32_t index() const noexcept { return packed_ & kIndexMask; }
  /// The packed form, and back: how the table stores it.
  [[nodiscard]] constexpr std::uint32_t packed() const noexcept { return packed_; }
  [[nodiscard]] static constexpr AliasTarget from_packed(std::uint32_t packed) noexcept {
    return AliasTarget(packed);
  }
  friend constexpr bool operator==(AliasTarget, AliasTarget) = default;

  /// Indexes must stay below this (a billion agents).
  static constexpr std::uint32_t kIndexMask = (std::uint32_t{1} << 30) - 1;

 private:
  explicit constexpr AliasTarget(std::uint32_t packed) noexcept : packed_(packed) {}
  std::uint32_t packed_;
};

/// The alias table of SPEC §1.5: active agent ids and names, person labels and their ASCII
/// slugs, desk ids and names, and `everyone`/`channel`/`here`, keyed by ICU full
/// lower-casing. It borrows the snapshots behind `roster` and `desks`, which must outlive it
/// and not move; a key that lower-casing changes is a copy it keeps.
class AliasTable {
 public:
  /// The table of snapshots that validated (SPEC §1.1, §1.2); `active` are the roster's
  /// active members in roster order (pointers into `roster.members()`), as the caller
  /// already knows them.
  AliasTable(const Roster& roster, std::span<const RosterMember* const> active,
             const DeskSet& desks);

  /// The one target `alias` names, or nothing when it names none or several (SPEC §1.5
  /// `extract_at`); with `desk_only` (written `@#alias`) desks alone count.
  [[nodiscard]] std::optional<MentionTarget> match(std::string_view alias, bool desk_only) const;
  /// `match` as a position in the snapshots: two aliases name the same target exactly when
  /// their positions are equal (the snapshots validated, so ids are unique per kind).
  [[nodiscard]] std::optional<AliasTarget> find(std::string_view alias, bool desk_only) const;
  /// The target at a position `find` answered.
  [[nodiscard]] MentionTarget target(AliasTarget position) const;
  /// `target(position)` written into `out`, reusing the id string `out` holds when it
  /// already is a target of that kind.
  void assign_target(AliasTarget position, MentionTarget& out) const;
  /// The id of the target at `position` (empty for everyone), a view into the snapshots.
  [[nodiscard]] std::string_view id_of(AliasTarget position) const noexcept;

  /// The heap bytes it owns (its slots and the keys it copied), for the bench.
  [[nodiscard]] std::size_t bytes() const noexcept;

 private:
  // What `match` needs under one key, kept as entries are added: the first target, or
  // `kNone`, or `kSeveral` once a different one followed (the key is then ambiguous).
  struct Candidates {
    std::uint32_t first = kNone;
    void add(AliasTarget target) noexcept;
    [[nodiscard]] std::optional<AliasTarget> one() const noexcept;
  };
  struct Named {
    Candidates all{};    // every entry, for `@alias`
    Candidates desks{};  // desk entries only, for `@#alias`
  };
  static constexpr std::uint32_t kNone = 0xFFFF'FFFF;
  static constexpr std::uint32_t kSeveral = 0xFFFF'FFFE;

  void add(std::string_view alias, AliasTarget target, bool desk);

  Roster roster_;
  DeskSet desks_;
  std::forward_list<std::string> owned_keys_;  // growing it moves no string
  std::size_t owned_bytes_ = 0;
  FlatIndex<Named> entries_;
};

}  // namespace thm::detail
