#include "thm/mentions/aliases.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "thm/detail/unreachable.hpp"

namespace thm::detail {
namespace {

// SPEC §1.5: an alias can match only if it starts like a token and holds no terminator.
bool admissible(std::string_view alias) {
  if (alias.empty() || !starts_alias(decode_at(alias, 0).code_point)) return false;
  for (std::size_t i = 0; i < alias.size();) {
    const auto c = decode_at(alias, i);
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

bool is_lower_ascii(std::string_view text) noexcept {
  return std::ranges::all_of(
      text, [](char c) { return static_cast<unsigned char>(c) < 0x80 && !(c >= 'A' && c <= 'Z'); });
}

// `text` lower-cased into `out` and its `hash_key`, when it is ASCII of at most 64 bytes;
// else nothing.
// Eight bytes at a time: a word with no byte of 0x80 or more is ASCII, and adding 0x3F and
// 0x25 to each byte (no carry leaves a byte below 0x80) sets the top bit of those from `A`
// and of those past `Z`, so the capitals are the bytes set by the first and not the second.
std::optional<std::size_t> lowercase_ascii(std::string_view text,
                                           std::array<char, 64>& out) noexcept {
  constexpr std::uint64_t kTop = 0x8080'8080'8080'8080;
  if (text.size() > 64) return std::nullopt;
  WordHash hash;
  for (std::size_t i = 0; i < text.size(); i += 8) {
    const std::size_t length = std::min<std::size_t>(8, text.size() - i);
    std::uint64_t word = load_word(text.data() + i, length);
    if ((word & kTop) != 0) return std::nullopt;
    const std::uint64_t capitals =
        (word + 0x3F3F'3F3F'3F3F'3F3F) & ~(word + 0x2525'2525'2525'2525) & kTop;
    word |= capitals >> 2;
    std::memcpy(out.data() + i, &word, 8);  // whole words: the key is the first bytes
    hash.add(word);
  }
  return hash.finish(text.size());
}

std::uint32_t index_of(std::size_t i) noexcept { return static_cast<std::uint32_t>(i); }

// The heap one key of `owned_keys_` takes: its list node, and its characters unless the
// string holds them itself (libstdc++ keeps up to 15 in place).
std::size_t key_bytes(const std::string& key) noexcept {
  return sizeof(void*) + sizeof(std::string) + (key.capacity() > 15 ? key.capacity() + 1 : 0);
}

}  // namespace

void AliasTable::Candidates::add(AliasTarget target) noexcept {
  if (first == kNone) {
    first = target.packed();
  } else if (first != target.packed()) {
    first = kSeveral;
  }
}

std::optional<AliasTarget> AliasTable::Candidates::one() const noexcept {
  if (first == kNone || first == kSeveral) return std::nullopt;
  return AliasTarget::from_packed(first);
}

AliasTable::AliasTable(const Roster& roster, std::span<const RosterMember* const> active,
                       const DeskSet& desks)
    : roster_(roster),
      desks_(desks),
      // Room for an id per member and two names per person and desk: a display name that
      // is an alias of its own (most have a space, or equal the id) grows the table.
      entries_(roster.members().size() +
               2 * (roster.people().size() + desks.declared().size() + desks.added().size()) + 3) {
  using Kind = AliasTarget::Kind;
  // An alias that is `admissible` starts with a letter, digit or `_`, none of which is
  // White_Space, so it is never blank: the blank names and labels that SPEC §1.5 leaves
  // out are left out by `add` without trimming them first.
  for (const RosterMember* member : active) {
    const AliasTarget agent(Kind::Agent,
                            index_of(static_cast<std::size_t>(member - roster.members().data())));
    add(member->id, agent, false);
    if (member->name) add(*member->name, agent, false);
  }
  const auto people = roster.people();
  for (std::size_t i = 0; i < people.size(); ++i) {
    add(people[i].label, AliasTarget(Kind::Person, index_of(i)), false);
  }
  std::unordered_set<std::string> slugs;  // allocated to earlier people
  // Per base slug, the first suffix not yet found taken: slugs are only ever added, so the
  // search for a free one resumes there instead of starting again at `_2`.
  std::unordered_map<std::string, std::size_t> next_suffix;
  for (std::size_t i = 0; i < people.size(); ++i) {
    const std::string base = ascii_slug(people[i].label);
    if (base.empty()) continue;
    std::string slug = base;
    if (slugs.contains(slug)) {
      std::size_t& n = next_suffix.try_emplace(base, 2).first->second;
      while (slugs.contains(slug = base + "_" + std::to_string(n))) ++n;
    }
    const std::string& key = owned_keys_.emplace_front(slug);
    owned_bytes_ += key_bytes(key);
    add(key, AliasTarget(Kind::Person, index_of(i)), false);
    slugs.insert(std::move(slug));
  }
  const std::size_t declared = desks.declared().size();
  for (std::size_t i = 0; i < declared + desks.added().size(); ++i) {
    const Desk& desk = i < declared ? desks.declared()[i] : desks.added()[i - declared];
    const AliasTarget target(Kind::Desk, index_of(i));
    add(desk.id, target, true);
    add(desk.name, target, true);
  }
  for (const std::string_view everyone : {"everyone", "channel", "here"}) {
    add(everyone, AliasTarget(Kind::Everyone, 0), false);
  }
}

void AliasTable::add(std::string_view alias, AliasTarget target, bool desk) {
  if (!admissible(alias)) return;
  // The key is `lowercase(alias)`. It borrows the snapshot when that is `alias` itself, as
  // for ASCII without capitals; else the table keeps the lower-cased copy.
  std::string_view key = alias;
  if (!is_lower_ascii(alias)) {
    const std::string& lower = owned_keys_.emplace_front(lowercase(alias));
    owned_bytes_ += key_bytes(lower);
    key = lower;
  }
  Named& named = entries_.try_emplace(key, Named{}).first;
  named.all.add(target);
  if (desk) named.desks.add(target);
}

std::optional<MentionTarget> AliasTable::match(std::string_view alias, bool desk_only) const {
  const auto position = find(alias, desk_only);
  if (!position) return std::nullopt;
  return target(*position);
}

std::optional<AliasTarget> AliasTable::find(std::string_view alias, bool desk_only) const {
  // Tokens are mostly short ASCII: those are lower-cased on the stack 8 bytes at a time and
  // hashed in the same loop; the rest go through ICU.
  std::array<char, 64> buffer;  // NOLINT: written before it is read
  const Named* named = nullptr;
  if (const auto hash = lowercase_ascii(alias, buffer)) {
    named = entries_.find(std::string_view(buffer.data(), alias.size()), *hash);
  } else {
    named = entries_.find(lowercase(alias));
  }
  if (named == nullptr) return std::nullopt;
  return (desk_only ? named->desks : named->all).one();
}

MentionTarget AliasTable::target(AliasTarget position) const {
  MentionTarget out;
  assign_target(position, out);
  return out;
}

std::string_view AliasTable::id_of(AliasTarget position) const noexcept {
  const std::size_t i = position.index();
  switch (position.kind()) {
    case AliasTarget::Kind::Agent:
      return roster_.members()[i].id;
    case AliasTarget::Kind::Person:
      return roster_.people()[i].id;
    case AliasTarget::Kind::Desk: {
      const std::size_t declared = desks_.declared().size();
      return i < declared ? desks_.declared()[i].id : desks_.added()[i - declared].id;
    }
    case AliasTarget::Kind::Everyone:
      return {};
  }
  unreachable();
}

namespace {

// `out` made a `Target{id}`, its string reused when it holds a `Target` already.
template <class Target>
void assign_id(MentionTarget& out, std::string_view id) {
  if (auto* held = std::get_if<Target>(&out)) {
    held->id.assign(id);
  } else {
    out.emplace<Target>().id.assign(id);
  }
}

}  // namespace

void AliasTable::assign_target(AliasTarget position, MentionTarget& out) const {
  const std::string_view id = id_of(position);
  switch (position.kind()) {
    case AliasTarget::Kind::Agent:
      return assign_id<AgentTarget>(out, id);
    case AliasTarget::Kind::Person:
      return assign_id<PersonTarget>(out, id);
    case AliasTarget::Kind::Desk:
      return assign_id<DeskTarget>(out, id);
    case AliasTarget::Kind::Everyone:
      out.emplace<EveryoneTarget>();
      return;
  }
  unreachable();
}

std::size_t AliasTable::bytes() const noexcept { return entries_.bytes() + owned_bytes_; }

}  // namespace thm::detail
