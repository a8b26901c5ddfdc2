#include "thm/resolution/resolve.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "thm/chat/chat.hpp"
#include "thm/detail/repeats.hpp"
#include "thm/detail/unicode.hpp"
#include "thm/mentions/aliases.hpp"
#include "thm/mentions/body_scan.hpp"
#include "thm/mentions/code_mask.hpp"
#include "thm/mentions/direct.hpp"
#include "thm/overloaded.hpp"
#include "thm/team/snapshot_team.hpp"

namespace thm {
namespace {

// ---- the lexer ---------------------------------------------------------------------------

// SPEC §1.5 opener: the byte before `@` is absent, ASCII whitespace without vertical tab,
// or one of `(`, `[`, `{`.
bool opens(std::string_view body, std::size_t at) noexcept {
  if (at == 0) return true;
  switch (body[at - 1]) {
    case ' ':
    case '\t':
    case '\n':
    case '\f':
    case '\r':
    case '(':
    case '[':
    case '{':
      return true;
    default:
      return false;
  }
}

using detail::is_terminator;
using detail::starts_alias;

// A lexed token: `@` at `at`, the alias in [alias_begin, end).
struct Token {
  std::size_t at = 0;
  std::size_t alias_begin = 0;
  std::size_t end = 0;
  bool desk_only = false;  // written `@#alias`
};

// The first terminator or `@` at or after a char boundary. Queries whose start does not
// move backwards reuse the previous answer, so a whole scan reads each byte once.
class TerminatorFinder {
 public:
  explicit TerminatorFinder(std::string_view body) : body_(body) {}

  std::size_t from(std::size_t start) {
    if (start >= searched_from_ && start <= found_) return found_;
    std::size_t i = start;
    while (i < body_.size()) {
      const auto byte = static_cast<unsigned char>(body_[i]);
      if (byte < 0x80) {  // ASCII, most of every token: one table read per byte
        if (detail::kAsciiTerminators[byte] || byte == '@') break;
        ++i;
        continue;
      }
      const auto c = detail::decode_non_ascii_at(body_, i);
      if (is_terminator(c.code_point)) break;
      i += c.length;
    }
    searched_from_ = start;
    found_ = i;
    return i;
  }

 private:
  std::string_view body_;
  std::size_t searched_from_ = std::numeric_limits<std::size_t>::max();
  std::size_t found_ = 0;
};

// SPEC §1.5 token steps 1-2 at the `@` at `at`: desk-only after `@#`, and an alias that
// starts with a letter, digit or `_` before `limit`. The end is left to the caller.
std::optional<Token> token_head(std::string_view body, std::size_t at, std::size_t limit) {
  Token token{.at = at, .alias_begin = at + 1};
  if (token.alias_begin < limit && body[token.alias_begin] == '#') {
    token.desk_only = true;
    ++token.alias_begin;
  }
  if (token.alias_begin >= limit) return std::nullopt;
  if (!starts_alias(detail::decode_at(body, token.alias_begin).code_point)) return std::nullopt;
  return token;
}

// SPEC §1.5 `mention_token` at the `@` at `at`: nothing when no alias starts there or the
// run up to the terminator contains another `@` (the finder then stops at that `@`).
std::optional<Token> lex(std::string_view body, std::size_t at, TerminatorFinder& terminators) {
  auto token = token_head(body, at, body.size());
  if (!token) return std::nullopt;
  token->end = terminators.from(token->alias_begin);
  if (token->end < body.size() && body[token->end] == '@') return std::nullopt;
  return token;
}

// The token at `at` if it ends exactly at `end` (SPEC §1.5 revalidation), reading only the
// span and the one character after it, so that checking many supplied mentions costs the
// length of their texts, not of the body.
std::optional<Token> lex_exactly(std::string_view body, std::size_t at, std::size_t end) {
  auto token = token_head(body, at, end);
  if (!token) return std::nullopt;
  for (std::size_t i = token->alias_begin; i < end;) {
    const auto c = detail::decode_at(body, i);
    if (is_terminator(c.code_point) || body[i] == '@') return std::nullopt;
    i += c.length;
  }
  if (end < body.size() && !is_terminator(detail::decode_at(body, end).code_point))
    return std::nullopt;
  token->end = end;
  return token;
}

// ---- extraction and revalidation ---------------------------------------------------------

bool is_masked(const std::vector<detail::ByteRange>& ranges, std::size_t offset) {
  const auto after = std::ranges::upper_bound(ranges, offset, {}, &detail::ByteRange::begin);
  return after != ranges.begin() && offset < std::prev(after)->end;
}

// Whether a mention of the agent or person with this id (`agent`: an agent) names the author.
bool names_author(bool agent, std::string_view id, const MentionAuthor& author) {
  if (const auto* by = std::get_if<AgentAuthor>(&author)) return agent && id == by->id;
  if (const auto* by = std::get_if<PersonAuthor>(&author)) return !agent && id == by->id;
  return false;
}

bool is_self_mention(const MentionTarget& target, const MentionAuthor& author) {
  if (const auto* agent = std::get_if<AgentTarget>(&target)) {
    return names_author(true, agent->id, author);
  }
  if (const auto* person = std::get_if<PersonTarget>(&target)) {
    return names_author(false, person->id, author);
  }
  return false;
}

bool is_self_mention(const detail::AliasTable& aliases, detail::AliasTarget position,
                     const MentionAuthor& author) {
  using Kind = detail::AliasTarget::Kind;
  return (position.kind() == Kind::Agent || position.kind() == Kind::Person) &&
         names_author(position.kind() == Kind::Agent, aliases.id_of(position), author);
}

// The targets the kept mentions of one scan name, as alias-table positions (equal exactly
// when the targets are): the first kPairwiseRepeatLimit compared one by one with no
// allocation, past them hashed as well.
class NamedTargets {
 public:
  // True when `position` is named for the first time; it is named from then on.
  bool first_time(detail::AliasTarget position) {
    const std::uint32_t key = position.packed();
    if (count_ < first_.size()) {
      const auto named = std::span(first_).first(count_);
      if (std::ranges::find(named, key) != named.end()) return false;
      first_[count_++] = key;
      return true;
    }
    if (rest_.empty()) rest_.insert(first_.begin(), first_.end());
    return rest_.insert(key).second;
  }

 private:
  std::array<std::uint32_t, detail::kPairwiseRepeatLimit> first_;  // NOLINT: [0, count_) set
  std::size_t count_ = 0;
  std::unordered_set<std::uint32_t> rest_;
};

// SPEC §1.4 `MENTION_CAP`, in reading order: the first kMentionCap mentions that would
// ping do, and every later one is quiet.
class PingingCap {
 public:
  // Whether one more mention may ping; counts it when it may.
  bool admits() noexcept {
    if (pinging_ == kMentionCap) return false;
    ++pinging_;
    return true;
  }

 private:
  std::size_t pinging_ = 0;
};

constexpr std::size_t kFirstMentions = 1024 / sizeof(Mention);
static_assert(kFirstMentions >= 8);

// SPEC §1.5 scan, then §1.4 normalization as the mentions are found. The scan yields the
// `@`s in one pass over the body; each is checked cheapest test first (opens, lexes, lies
// outside code, names a target). The tests are independent, so their order changes no
// answer, only how much is computed: the code mask (of what lies behind the `@`) and the
// alias table are consulted only once a token needs them. Found mentions come in offset
// order, one per offset, so normalizing them is dropping self-mentions and making repeats and
// those past the cap quiet, as `normalize` does for a supplied list.
template <class Team>
std::vector<Mention> extract(std::string_view body, const MentionAuthor& author, const Team& team) {
  std::vector<Mention> found;
  TerminatorFinder terminators(body);
  detail::BodyScan scan(body);
  NamedTargets named;
  PingingCap cap;
  for (std::size_t at = scan.next_at(); at != std::string_view::npos; at = scan.next_at()) {
    if (!opens(body, at)) continue;
    const auto token = lex(body, at, terminators);
    if (!token || scan.in_code(at)) continue;
    const detail::AliasTable& aliases = detail::alias_table(team);
    const auto position = aliases.find(
        body.substr(token->alias_begin, token->end - token->alias_begin), token->desk_only);
    if (!position || is_self_mention(aliases, *position, author)) continue;
    const bool quiet = !named.first_time(*position) || !cap.admits();
    // One small block for a message's first mentions, as many as fit under 1 KiB (glibc
    // serves blocks up to 1,032 bytes from a per-thread cache; larger ones take its slower
    // path). Each is built in place.
    if (found.empty()) found.reserve(kFirstMentions);
    Mention& mention = found.emplace_back();
    aliases.assign_target(*position, mention.target);
    mention.text.assign(body.substr(at, token->end - at));
    mention.offset = at;
    mention.quiet = quiet;
  }
  return found;
}

bool is_char_boundary(std::string_view body, std::size_t offset) noexcept {
  return offset == body.size() ||
         (offset < body.size() && (static_cast<unsigned char>(body[offset]) & 0xC0) != 0x80);
}

template <class Team>
bool target_is_active(const MentionTarget& target, const Team& team) {
  return std::visit(overloaded{
                        [&](const AgentTarget& t) { return team.is_active(t.id); },
                        [&](const PersonTarget& t) { return team.person(t.id) != nullptr; },
                        [&](const DeskTarget& t) { return team.desk(t.id) != nullptr; },
                        [](const EveryoneTarget&) { return true; },
                    },
                    target);
}

// SPEC §1.5 step 3: a supplied mention survives only as an exact token of the body.
template <class Team>
std::vector<Mention> revalidate(std::string_view body, std::span<const Mention> supplied,
                                const Team& team) {
  std::vector<Mention> kept;
  if (supplied.empty()) return kept;
  const std::vector<detail::ByteRange> code = detail::code_ranges(body);
  for (const Mention& mention : supplied) {
    const std::size_t offset = mention.offset;
    if (mention.text.size() > std::numeric_limits<std::size_t>::max() - offset) continue;
    const std::size_t end = offset + mention.text.size();
    if (end > body.size() || !is_char_boundary(body, offset) || !is_char_boundary(body, end))
      continue;
    if (body.substr(offset, mention.text.size()) != mention.text) continue;
    if (offset >= body.size() || body[offset] != '@') continue;
    if (is_masked(code, offset) || !opens(body, offset)) continue;
    const auto token = lex_exactly(body, offset, end);
    if (!token) continue;

    Mention survivor = mention;
    const auto target = team.match_alias(body.substr(token->alias_begin, end - token->alias_begin),
                                         token->desk_only);
    if (!target || !(*target == mention.target) || !target_is_active(mention.target, team)) {
      survivor.quiet = true;
    }
    kept.push_back(std::move(survivor));
  }
  return kept;
}

// ---- normalization -----------------------------------------------------------------------

// A target as one hashable string: kind letter, then the id.
std::string target_key(const MentionTarget& target) {
  return std::visit(overloaded{
                        [](const AgentTarget& t) { return "a" + t.id; },
                        [](const PersonTarget& t) { return "p" + t.id; },
                        [](const DeskTarget& t) { return "d" + t.id; },
                        [](const EveryoneTarget&) { return std::string("e"); },
                    },
                    target);
}

// The id a target carries (nothing for everyone).
std::string_view id_of(const MentionTarget& target) noexcept {
  if (const auto* agent = std::get_if<AgentTarget>(&target)) return agent->id;
  if (const auto* person = std::get_if<PersonTarget>(&target)) return person->id;
  if (const auto* desk = std::get_if<DeskTarget>(&target)) return desk->id;
  return {};
}

// `a == b`, comparing the kinds first and the ids as `same_id` does (last byte first).
bool same_target(const MentionTarget& a, const MentionTarget& b) noexcept {
  return a.index() == b.index() && detail::same_id(id_of(a), id_of(b));
}

// Whether `target` repeats the target of one of the first `kept` mentions. Up to
// kPairwiseRepeatLimit kept mentions are compared pairwise (no allocation, and fewer
// instructions than hashing for the handful a message holds); past that, `seen` holds the
// keys of every kept target.
bool repeats(const MentionTarget& target, std::span<const Mention> kept,
             std::unordered_set<std::string>& seen) {
  if (kept.size() < detail::kPairwiseRepeatLimit) {
    return std::ranges::any_of(kept,
                               [&](const Mention& m) { return same_target(m.target, target); });
  }
  if (seen.empty()) {
    for (const Mention& m : kept) seen.insert(target_key(m.target));
  }
  return !seen.insert(target_key(target)).second;
}

// SPEC §1.4 normalization of a supplied list that revalidated (`extract` normalizes found
// mentions as it goes).
std::vector<Mention> normalize(std::vector<Mention> mentions, const MentionAuthor& author) {
  // A stable sort leaves a sorted list as it is, and most hosts supply them sorted.
  if (!std::ranges::is_sorted(mentions, {}, &Mention::offset)) {
    std::ranges::stable_sort(mentions, {}, &Mention::offset);
  }
  // Kept mentions are moved to the front, in order; the rest is cut off at the end.
  std::size_t kept = 0;
  std::optional<std::size_t> last_offset;
  std::unordered_set<std::string> seen;
  PingingCap cap;
  for (Mention& mention : mentions) {
    if (last_offset == mention.offset) continue;
    if (is_self_mention(mention.target, author)) continue;
    last_offset = mention.offset;
    if (repeats(mention.target, std::span<const Mention>(mentions).first(kept), seen)) {
      mention.quiet = true;
    }
    if (!mention.quiet && !cap.admits()) mention.quiet = true;
    if (&mentions[kept] != &mention) mentions[kept] = std::move(mention);
    ++kept;
  }
  mentions.erase(mentions.begin() + static_cast<std::ptrdiff_t>(kept), mentions.end());
  return mentions;
}

// The indices of `mentions` in offset order, ties in list order.
std::vector<std::size_t> reading_order(std::span<const Mention> mentions) {
  std::vector<std::size_t> order(mentions.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return mentions[i].offset; });
  return order;
}

// SPEC §1.5 on snapshots that validated.
template <class Team>
std::vector<Mention> resolve(std::string_view body,
                             std::optional<std::span<const Mention>> supplied,
                             const MentionAuthor& author, const Team& team) {
  if (!supplied) return extract(body, author, team);
  return normalize(revalidate(body, *supplied, team), author);
}

template <class Team>
std::vector<std::string> members_brought_in(std::span<const Mention> mentions,
                                            std::optional<std::string_view> addressed_desk,
                                            std::optional<std::string_view> responder,
                                            const Team& team) {
  std::vector<std::string> members;
  std::unordered_set<std::string_view> added;
  const auto add = [&](std::string_view agent_id) {
    if (responder == agent_id || !team.is_active(agent_id)) return;
    if (added.insert(agent_id).second) members.emplace_back(agent_id);
  };
  // Only first appearances count, so each desk and @everyone is expanded once: a message of
  // many repeats costs its length, not its length times the roster.
  std::unordered_set<const Desk*> expanded;
  const auto add_desk = [&](std::string_view identity) {
    const detail::DeskLookup found = team.find_desk(identity);
    if (found.desk == nullptr || !expanded.insert(found.desk).second) return;
    for (const std::string_view agent_id : team.effective_members(*found.desk)) add(agent_id);
  };
  bool everyone_expanded = false;
  for (const std::size_t i : reading_order(mentions)) {
    std::visit(overloaded{
                   [&](const AgentTarget& t) { add(t.id); },
                   [&](const DeskTarget& t) { add_desk(t.id); },
                   [&](const EveryoneTarget&) {
                     if (addressed_desk && !is_general_chat(addressed_desk)) {
                       add_desk(*addressed_desk);
                     } else if (!std::exchange(everyone_expanded, true)) {
                       for (const RosterMember* member : team.active_members()) add(member->id);
                     }
                   },
                   [](const PersonTarget&) {},
               },
               mentions[i].target);
  }
  return members;
}

}  // namespace

std::vector<Mention> resolve_mentions(std::string_view body,
                                      std::optional<std::span<const Mention>> supplied,
                                      const MentionAuthor& author, const Roster& roster,
                                      const DeskSet& desks) {
  // Every mention, found or supplied, starts at an `@` of the body (extraction lexes only
  // there; revalidation drops a span that does not start with one), so a body without `@`
  // has none, whatever the snapshots: the answer needs no other look at the inputs.
  if (body.find('@') == std::string_view::npos) return {};
  if (roster.validate() || desks.validate()) return {};
  return resolve(body, supplied, author, detail::SnapshotTeam(roster, desks));
}

std::vector<Mention> resolve_mentions(std::string_view body,
                                      std::optional<std::span<const Mention>> supplied,
                                      const MentionAuthor& author, const Team& team) {
  if (body.find('@') == std::string_view::npos) return {};
  return resolve(body, supplied, author, team);
}

std::optional<std::string> direct_responder(std::span<const Mention> mentions,
                                            const Roster& roster) {
  if (roster.validate()) return std::nullopt;
  return detail::first_direct_responder(mentions, detail::SnapshotTeam(roster));
}

std::optional<std::string> direct_responder(std::span<const Mention> mentions, const Team& team) {
  return detail::first_direct_responder(mentions, team);
}

std::vector<std::string> mentioned_members(std::span<const Mention> mentions,
                                           std::optional<std::string_view> addressed_desk,
                                           std::optional<std::string_view> responder,
                                           const Roster& roster, const DeskSet& desks) {
  if (roster.validate() || desks.validate()) return {};
  return members_brought_in(mentions, addressed_desk, responder,
                            detail::SnapshotTeam(roster, desks));
}

std::vector<std::string> mentioned_members(std::span<const Mention> mentions,
                                           std::optional<std::string_view> addressed_desk,
                                           std::optional<std::string_view> responder,
                                           const Team& team) {
  return members_brought_in(mentions, addressed_desk, responder, team);
}

}  // namespace thm
