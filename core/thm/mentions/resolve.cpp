#include "thm/mentions/resolve.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <forward_list>
#include <iterator>
#include <limits>
#include <memory_resource>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "thm/chat/chat.hpp"
#include "thm/detail/unicode.hpp"
#include "thm/detail/unreachable.hpp"
#include "thm/mentions/code_mask.hpp"
#include "thm/overloaded.hpp"

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

// SPEC §1.5 token step 3: an alias ends at White_Space or at one of these.
constexpr std::string_view kTerminatingPunctuation = ",;.?!:)]}'\"";

// The ASCII terminators as a table, read by every alias and token byte: the punctuation
// above and ASCII's White_Space characters (U+0009..U+000D, U+0020).
constexpr std::array<bool, 0x80> kAsciiTerminators = [] {
  std::array<bool, 0x80> table{};
  for (const char c : kTerminatingPunctuation) table[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view(" \t\n\v\f\r")) table[static_cast<std::size_t>(c)] = true;
  return table;
}();

bool is_terminator(char32_t c) noexcept {
  if (c < 0x80) return kAsciiTerminators[c];
  return detail::is_unicode_whitespace(c);  // no terminating punctuation is beyond ASCII
}

bool starts_alias(char32_t c) noexcept { return c == U'_' || detail::is_alphanumeric(c); }

// A lexed token: `@` at `at`, the alias in [alias_begin, end).
struct Token {
  std::size_t at = 0;
  std::size_t alias_begin = 0;
  std::size_t end = 0;
  bool desk_only = false;  // written `@#alias`
};

// The first terminator at or after a char boundary. Queries whose start does not move
// backwards reuse the previous answer, so a whole scan reads each byte once.
class TerminatorFinder {
 public:
  explicit TerminatorFinder(std::string_view body) : body_(body) {}

  std::size_t from(std::size_t start) {
    if (start >= searched_from_ && start <= found_) return found_;
    std::size_t i = start;
    while (i < body_.size()) {
      const auto c = detail::decode_at(body_, i);
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
// run contains another `@`.
std::optional<Token> lex(std::string_view body, std::size_t at, TerminatorFinder& terminators) {
  auto token = token_head(body, at, body.size());
  if (!token) return std::nullopt;
  token->end = terminators.from(token->alias_begin);
  const std::string_view alias = body.substr(token->alias_begin, token->end - token->alias_begin);
  if (alias.find('@') != std::string_view::npos) return std::nullopt;
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

// ---- the alias table ---------------------------------------------------------------------

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

// SPEC §1.5: an alias can match only if it starts like a token and holds no terminator.
bool admissible(std::string_view alias) {
  if (alias.empty() || !starts_alias(detail::decode_at(alias, 0).code_point)) return false;
  for (std::size_t i = 0; i < alias.size();) {
    const auto c = detail::decode_at(alias, i);
    if (is_terminator(c.code_point)) return false;
    i += c.length;
  }
  return true;
}

// SPEC §1.5 ASCII slug of a person label.
std::string ascii_slug(std::string_view label) {
  std::string slug;
  bool pending_separator = false;
  for (const char c : label) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      pending_separator = true;
      continue;
    }
    if (pending_separator && !slug.empty()) slug += '_';
    pending_separator = false;
    slug += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return slug;
}

// The alias table of SPEC §1.5, built per call. It borrows the snapshots: keys and target
// ids are views into them, except a key that lower-casing changes, which the table owns.
class AliasTable {
 public:
  AliasTable(const Roster& roster, const DeskSet& desks) {
    // An alias that is `admissible` starts with a letter, digit or `_`, none of which is
    // White_Space, so it is never blank: the blank names and labels that SPEC §1.5 leaves
    // out are left out by `add` without trimming them first.
    const std::vector<const RosterMember*> members = roster.active_members();
    const std::vector<const Desk*> desk_list = desks.desks();
    entries_.reserve(2 * (members.size() + roster.people().size() + desk_list.size()) + 3);
    for (const RosterMember* member : members) {
      add(member->id, {.kind = Kind::Agent, .id = member->id}, false);
      if (member->name) add(*member->name, {.kind = Kind::Agent, .id = member->id}, false);
    }
    for (const Person& someone : roster.people()) {
      add(someone.label, {.kind = Kind::Person, .id = someone.id}, false);
    }
    std::unordered_set<std::string> slugs;  // allocated to earlier people
    // Per base slug, the first suffix not yet found taken: slugs are only ever added, so the
    // search for a free one resumes there instead of starting again at `_2`.
    std::unordered_map<std::string, std::size_t> next_suffix;
    for (const Person& someone : roster.people()) {
      const std::string base = ascii_slug(someone.label);
      if (base.empty()) continue;
      std::string slug = base;
      if (slugs.contains(slug)) {
        std::size_t& n = next_suffix.try_emplace(base, 2).first->second;
        while (slugs.contains(slug = base + "_" + std::to_string(n))) ++n;
      }
      add(owned_keys_.emplace_front(slug), {.kind = Kind::Person, .id = someone.id}, false);
      slugs.insert(std::move(slug));
    }
    for (const Desk* desk : desk_list) {
      add(desk->id, {.kind = Kind::Desk, .id = desk->id}, true);
      add(desk->name, {.kind = Kind::Desk, .id = desk->id}, true);
    }
    for (const std::string_view everyone : {"everyone", "channel", "here"}) {
      add(everyone, {.kind = Kind::Everyone}, false);
    }
  }

  // SPEC §1.5 `extract_at`: the one target the alias names, or nothing when it names none
  // or several.
  [[nodiscard]] std::optional<MentionTarget> match(std::string_view alias, bool desk_only) const {
    const std::string lower = detail::lowercase(alias);
    const auto found = entries_.find(lower);
    if (found == entries_.end()) return std::nullopt;
    const Candidates& candidates = desk_only ? found->second.desks : found->second.all;
    if (candidates.several || !candidates.first) return std::nullopt;
    return candidates.first->to_target();
  }

 private:
  enum class Kind : std::uint8_t { Agent, Person, Desk, Everyone };

  struct TargetRef {
    Kind kind = Kind::Everyone;
    std::string_view id{};
    friend bool operator==(const TargetRef&, const TargetRef&) = default;

    [[nodiscard]] MentionTarget to_target() const {
      switch (kind) {
        case Kind::Agent:
          return AgentTarget{std::string(id)};
        case Kind::Person:
          return PersonTarget{std::string(id)};
        case Kind::Desk:
          return DeskTarget{std::string(id)};
        case Kind::Everyone:
          return EveryoneTarget{};
      }
      detail::unreachable();
    }
  };

  // What `match` needs of the entries under one key, kept as they are added: the first
  // target, and whether another, different one followed (the key is then ambiguous).
  struct Candidates {
    std::optional<TargetRef> first{};
    bool several = false;

    void add(const TargetRef& target) {
      if (!first) {
        first = target;
      } else if (!(*first == target)) {
        several = true;
      }
    }
  };

  struct Named {
    Candidates all{};    // every entry, for `@alias`
    Candidates desks{};  // desk entries only, for `@#alias`
  };

  // `alias` must outlive the table: it is a snapshot's text or one of `owned_keys_`.
  void add(std::string_view alias, const TargetRef& target, bool desk) {
    if (!admissible(alias)) return;
    // The key is `lowercase(alias)`. It borrows the snapshot when that is `alias` itself, as
    // for ASCII without capitals; else the table keeps the lower-cased copy (in a list:
    // growing it moves no string, so views stay valid).
    std::string_view key = alias;
    const auto lower_ascii = [](char c) {
      return static_cast<unsigned char>(c) < 0x80 && !(c >= 'A' && c <= 'Z');
    };
    if (!std::ranges::all_of(alias, lower_ascii))
      key = owned_keys_.emplace_front(detail::lowercase(alias));
    Named& named = entries_[key];
    named.all.add(target);
    if (desk) named.desks.add(target);
  }

  // The table lives for one call and only grows: its nodes come from one arena, freed at
  // once, rather than from one heap allocation each.
  std::pmr::monotonic_buffer_resource arena_;
  std::forward_list<std::string> owned_keys_;
  std::pmr::unordered_map<std::string_view, Named> entries_{&arena_};
};

// ---- extraction and revalidation ---------------------------------------------------------

bool is_masked(const std::vector<detail::ByteRange>& ranges, std::size_t offset) {
  const auto after = std::ranges::upper_bound(ranges, offset, {}, &detail::ByteRange::begin);
  return after != ranges.begin() && offset < std::prev(after)->end;
}

// SPEC §1.5 scan. Each `@` is checked cheapest test first (opens, lexes, lies outside
// code, names a target); the tests are independent, so their order changes no answer, only
// how much is computed: the code mask and the alias table are built only once a token
// needs them.
std::vector<Mention> extract(std::string_view body, const Roster& roster, const DeskSet& desks) {
  std::vector<Mention> found;
  TerminatorFinder terminators(body);
  detail::CodeMask code(body);
  std::optional<AliasTable> aliases;
  for (std::size_t at = body.find('@'); at != std::string_view::npos; at = body.find('@', at + 1)) {
    if (!opens(body, at)) continue;
    const auto token = lex(body, at, terminators);
    if (!token || code.contains(at)) continue;
    if (!aliases) aliases.emplace(roster, desks);
    auto target = aliases->match(body.substr(token->alias_begin, token->end - token->alias_begin),
                                 token->desk_only);
    if (!target) continue;
    found.push_back(Mention{.target = *std::move(target),
                            .text = std::string(body.substr(at, token->end - at)),
                            .offset = at});
  }
  return found;
}

bool is_char_boundary(std::string_view body, std::size_t offset) noexcept {
  return offset == body.size() ||
         (offset < body.size() && (static_cast<unsigned char>(body[offset]) & 0xC0) != 0x80);
}

bool target_is_active(const MentionTarget& target, const Roster& roster, const DeskSet& desks) {
  return std::visit(overloaded{
                        [&](const AgentTarget& t) { return roster.is_active(t.id); },
                        [&](const PersonTarget& t) { return roster.person(t.id) != nullptr; },
                        [&](const DeskTarget& t) { return desks.desk(t.id) != nullptr; },
                        [](const EveryoneTarget&) { return true; },
                    },
                    target);
}

// SPEC §1.5 step 3: a supplied mention survives only as an exact token of the body.
std::vector<Mention> revalidate(std::string_view body, std::span<const Mention> supplied,
                                const Roster& roster, const DeskSet& desks) {
  std::vector<Mention> kept;
  if (supplied.empty()) return kept;
  const AliasTable aliases(roster, desks);
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
    const auto target =
        aliases.match(body.substr(token->alias_begin, end - token->alias_begin), token->desk_only);
    if (!target || !(*target == mention.target) ||
        !target_is_active(mention.target, roster, desks)) {
      survivor.quiet = true;
    }
    kept.push_back(std::move(survivor));
  }
  return kept;
}

// ---- normalization -----------------------------------------------------------------------

bool is_self_mention(const MentionTarget& target, const MentionAuthor& author) {
  if (const auto* agent = std::get_if<AgentAuthor>(&author)) {
    const auto* mentioned = std::get_if<AgentTarget>(&target);
    return mentioned != nullptr && mentioned->id == agent->id;
  }
  if (const auto* person = std::get_if<PersonAuthor>(&author)) {
    const auto* mentioned = std::get_if<PersonTarget>(&target);
    return mentioned != nullptr && mentioned->id == person->id;
  }
  return false;
}

std::vector<Mention> normalize(std::vector<Mention> mentions, const MentionAuthor& author) {
  // Extraction yields its mentions in offset order already, and a stable sort leaves a
  // sorted list as it is: only supplied lists can need sorting.
  if (!std::ranges::is_sorted(mentions, {}, &Mention::offset)) {
    std::ranges::stable_sort(mentions, {}, &Mention::offset);
  }
  std::vector<Mention> kept;
  kept.reserve(mentions.size());
  std::optional<std::size_t> last_offset;
  std::unordered_set<std::string> seen_targets;
  std::size_t pinging = 0;
  for (Mention& mention : mentions) {
    if (last_offset == mention.offset) continue;
    if (is_self_mention(mention.target, author)) continue;
    last_offset = mention.offset;
    if (!seen_targets.insert(target_key(mention.target)).second) mention.quiet = true;
    if (!mention.quiet) {
      if (pinging == kMentionCap) {
        mention.quiet = true;
      } else {
        ++pinging;
      }
    }
    kept.push_back(std::move(mention));
  }
  return kept;
}

// The ids of the active members, for constant-time lookups.
std::unordered_set<std::string_view> active_ids(const Roster& roster) {
  std::unordered_set<std::string_view> ids;
  for (const RosterMember* member : roster.active_members()) ids.insert(member->id);
  return ids;
}

// The indices of `mentions` in offset order, ties in list order.
std::vector<std::size_t> reading_order(std::span<const Mention> mentions) {
  std::vector<std::size_t> order(mentions.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, {}, [&](std::size_t i) { return mentions[i].offset; });
  return order;
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
  std::vector<Mention> found =
      supplied ? revalidate(body, *supplied, roster, desks) : extract(body, roster, desks);
  return normalize(std::move(found), author);
}

std::optional<std::string> direct_responder(std::span<const Mention> mentions,
                                            const Roster& roster) {
  if (roster.validate()) return std::nullopt;
  const std::unordered_set<std::string_view> active = active_ids(roster);
  const Mention* first = nullptr;
  for (const Mention& mention : mentions) {
    const auto* agent = std::get_if<AgentTarget>(&mention.target);
    if (mention.quiet || agent == nullptr || !active.contains(agent->id)) continue;
    if (first == nullptr || mention.offset < first->offset) first = &mention;
  }
  if (first == nullptr) return std::nullopt;
  return std::get<AgentTarget>(first->target).id;
}

std::vector<std::string> mentioned_members(std::span<const Mention> mentions,
                                           std::optional<std::string_view> addressed_desk,
                                           std::optional<std::string_view> responder,
                                           const Roster& roster, const DeskSet& desks) {
  if (roster.validate() || desks.validate()) return {};
  const std::unordered_set<std::string_view> active = active_ids(roster);
  std::vector<std::string> members;
  std::unordered_set<std::string> added;
  const auto add = [&](const std::string& agent_id) {
    if (responder == agent_id || !active.contains(agent_id)) return;
    if (added.insert(agent_id).second) members.push_back(agent_id);
  };
  // Only first appearances count, so each desk and @everyone is expanded once: a message of
  // many repeats costs its length, not its length times the roster.
  std::unordered_set<std::string_view> expanded;
  const auto add_desk = [&](std::string_view identity) {
    if (!expanded.insert(identity).second) return;
    if (auto desk_members = desks.members(identity)) {
      for (const std::string& agent_id : *desk_members) add(agent_id);
    }
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
                       for (const RosterMember* member : roster.active_members()) add(member->id);
                     }
                   },
                   [](const PersonTarget&) {},
               },
               mentions[i].target);
  }
  return members;
}

}  // namespace thm
