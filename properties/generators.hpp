#pragma once
// RapidCheck generators for every input type, aimed at the edges: case-twin ids, retired and
// tombstoned members, desks with orders, equal offsets, quiet flags, bodies mixing aliases,
// punctuation, code, fences, emails, NBSP and non-ASCII text, hops near 0 and u32::MAX.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "thm/core.hpp"

namespace thm::properties {

// Ids that collide in interesting ways: case twins, prefixes, hyphens, reserved words,
// non-ASCII letters whose lower-casing changes length.
inline const std::vector<std::string> kIds{
    "alice", "Alice", "bob", "b", "ba", "eng", "Engineering", "here", "everyone", "chief-khaliq",
    "chief", "a_1", "orch", "\u0130", "i\u0307", "\u039F\u03A3", "\u6771\u4EAC", "x", "a@b"};

inline rc::Gen<std::string> gen_id() { return rc::gen::elementOf(kIds); }

// `items` in an order RapidCheck picks (and can shrink towards the original).
template <class T>
std::vector<T> shuffled(std::vector<T> items) {
  for (std::size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[*rc::gen::inRange<std::size_t>(0, i)]);
  }
  return items;
}

// Nothing, or a value of `values` (std::optional rather than RapidCheck's own Maybe).
template <class T>
rc::Gen<std::optional<T>> gen_optional(rc::Gen<T> values) {
  return rc::gen::exec([values] {
    if (*rc::gen::inRange(0, 4) == 0) return std::optional<T>{};
    return std::optional<T>{*values};
  });
}

inline rc::Gen<std::vector<std::string>> gen_ids(int most) {
  return rc::gen::exec([most] {
    const int n = *rc::gen::inRange(0, most + 1);
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) ids.push_back(*gen_id());
    return ids;
  });
}

// Rosters: mostly valid (distinct ids), sometimes not; some members retired or tombstoned.
inline rc::Gen<RosterSnapshot> gen_roster() {
  return rc::gen::exec([] {
    RosterSnapshot roster;
    const bool allow_invalid = *rc::gen::weightedElement<bool>({{9, false}, {1, true}});
    std::vector<std::string> ids = *gen_ids(5);
    if (*rc::gen::weightedElement<bool>({{1, false}, {6, true}})) {
      ids.insert(ids.begin(), {"orch", "alice", "bob"});
    }
    for (const std::string& id : ids) {
      const bool taken = std::ranges::any_of(roster.members, [&](const RosterMember& m) { return m.id == id; });
      if (taken && !allow_invalid) continue;
      const auto name = *gen_optional(rc::gen::elementOf(std::vector<std::string>{"Alice", "Bob", "Alice A", " ", "Eng", "here", "\u0130", "Shared"}));
      roster.members.push_back({.id = id, .name = name});
    }
    const std::vector<std::string> labels{"Ada", "Ada", "Ada 2", "Ada Lovelace", "Pat", "  Chief--Researcher  ", "\u6771\u4EAC", "bob", "Eng"};
    const int people = *rc::gen::inRange(0, 4);
    for (int i = 0; i < people; ++i) {
      roster.people.push_back({.id = "p" + std::to_string(i), .label = *rc::gen::elementOf(labels)});
    }
    if (allow_invalid && *rc::gen::arbitrary<bool>()) roster.people.push_back({.id = " ", .label = "x"});
    roster.retired = *gen_ids(2);
    roster.tombstoned = *gen_ids(1);
    return roster;
  });
}

// Desk sets: a few desks over the id pool, with additions, orders (some stale, some
// broken) and retirements; the General desk and reserved spellings now and then.
// `staff`, when given, are the ids desks mostly draw their members from (a roster's members),
// so that desk plans meet active agents.
inline rc::Gen<DeskSnapshot> gen_desks(std::vector<std::string> staff = {}) {
  return rc::gen::exec([staff] {
    const auto gen_member_ids = [&staff] {
      if (staff.empty() || *rc::gen::inRange(0, 4) == 0) return *gen_ids(4);
      std::vector<std::string> ids;
      const int n = *rc::gen::weightedElement<int>({{1, 0}, {2, 1}, {3, 2}, {2, 3}, {1, 4}});
      for (int i = 0; i < n; ++i) ids.push_back(*rc::gen::elementOf(staff));
      return ids;
    };
    DeskSnapshot desks;
    const std::vector<std::pair<std::string, std::string>> identities{
        {"eng", "Engineering"}, {"ops", "Operations"}, {"d1", "Shared"}, {"d2", "Shared"},
        {"General", "General"}, {"bob", "Bobs"}, {"main", "x"}, {"eng", "Dup"}, {"here", "Here"}};
    const int count = *rc::gen::weightedElement<int>({{1, 0}, {3, 1}, {3, 2}, {2, 3}});
    std::vector<std::size_t> used;
    for (int i = 0; i < count; ++i) {
      // Mostly ordinary desks, each identity once (so a duplicate id only comes from the
      // "eng"/"Dup" entry); reserved spellings now and then.
      std::size_t pick = *rc::gen::weightedElement<std::size_t>(
          {{6, 0}, {4, 1}, {2, 2}, {2, 3}, {1, 4}, {2, 5}, {1, 6}, {1, 7}, {1, 8}});
      if (std::ranges::find(used, pick) != used.end()) continue;
      used.push_back(pick);
      const auto& [id, name] = identities[pick];
      Desk desk{.id = id, .name = name, .members = gen_member_ids(),
                .responder_mode = *rc::gen::element(ResponderMode::Lead, ResponderMode::Auto)};
      if (*rc::gen::arbitrary<bool>()) {
        desks.declared.push_back(std::move(desk));
      } else {
        desks.added.push_back(std::move(desk));
      }
    }
    std::vector<std::string> desk_ids;
    for (const Desk& d : desks.declared) desk_ids.push_back(d.id);
    for (const Desk& d : desks.added) desk_ids.push_back(d.id);
    if (!desk_ids.empty()) {
      const int rows = *rc::gen::inRange(0, 3);
      for (int i = 0; i < rows; ++i) desks.member_additions.push_back({.desk_id = *rc::gen::elementOf(desk_ids), .agent_id = *gen_id()});
      if (*rc::gen::arbitrary<bool>()) {
        // Usually a permutation of the desk's members (retired ones are stale but allowed),
        // sometimes broken by dropping, repeating or adding an entry.
        const std::string desk_id = *rc::gen::elementOf(desk_ids);
        std::vector<std::string> ordered;
        const auto add = [&](const std::string& agent_id) {
          if (std::ranges::find(ordered, agent_id) == ordered.end()) ordered.push_back(agent_id);
        };
        for (const auto* list : {&desks.declared, &desks.added}) {
          for (const Desk& d : *list) {
            if (d.id == desk_id) std::ranges::for_each(d.members, add);
          }
        }
        for (const DeskMember& row : desks.member_additions) {
          if (row.desk_id == desk_id) add(row.agent_id);
        }
        ordered = shuffled(ordered);
        switch (*rc::gen::inRange(0, 8)) {
          case 0: if (!ordered.empty()) ordered.pop_back(); break;
          case 1: if (!ordered.empty()) ordered.push_back(ordered.front()); break;
          case 2: ordered.push_back(*gen_id()); break;
          default: break;
        }
        desks.orders.push_back({.desk_id = desk_id, .ordered = ordered});
      }
    }
    desks.retired = *gen_ids(2);
    desks.tombstoned = *gen_ids(1);
    return desks;
  });
}

inline std::vector<std::string> member_ids(const RosterSnapshot& roster) {
  std::vector<std::string> ids;
  for (const RosterMember& m : roster.members) ids.push_back(m.id);
  return ids;
}

inline rc::Gen<MentionTarget> gen_target() {
  return rc::gen::exec([]() -> MentionTarget {
    switch (*rc::gen::inRange(0, 6)) {
      case 0: return PersonTarget{"p" + std::to_string(*rc::gen::inRange(0, 3))};
      case 1: return DeskTarget{*rc::gen::elementOf(std::vector<std::string>{"eng", "ops", "d1", "missing"})};
      case 2: return EveryoneTarget{};
      default: return AgentTarget{*gen_id()};
    }
  });
}

// Mention lists with small offsets (so some are equal) and quiet flags.
inline rc::Gen<std::vector<Mention>> gen_mentions() {
  return rc::gen::exec([] {
    std::vector<Mention> mentions;
    const int n = *rc::gen::inRange(0, 6);
    for (int i = 0; i < n; ++i) {
      mentions.push_back({.target = *gen_target(),
                          .text = "@" + *gen_id(),
                          .offset = static_cast<std::size_t>(*rc::gen::inRange(0, 8)),
                          .quiet = *rc::gen::weightedElement<bool>({{4, false}, {1, true}})});
    }
    return mentions;
  });
}

inline rc::Gen<MentionAuthor> gen_author() {
  return rc::gen::exec([]() -> MentionAuthor {
    switch (*rc::gen::inRange(0, 3)) {
      case 0: return AgentAuthor{*gen_id()};
      case 1: return PersonAuthor{"p" + std::to_string(*rc::gen::inRange(0, 3))};
      default: return OtherAuthor{};
    }
  });
}

// Message bodies built from fragments that exercise the grammar and the code masking.
inline rc::Gen<std::string> gen_body() {
  static const std::vector<std::string> fragments{
      " ", " ", "\n", "\n\n", "\r\n", "\t", "\v", "\f", "\u00A0", "\u2028", "(", "[", "{", ")",
      ",", ".", ";", ":", "!", "?", "'", "\"", "-", "/", "#", "_", "x", "1", "\u00E9", "\u3000",
      "`", "``", "```", "```\n", "````\n", "~~~\n", "~~~~\n", "    ", "\\", "\\`", "# ", "---\n",
      "***\n", "===\n",
      "- ", "> ", "1. ", "@", "@@", "@#", "x@", "mail a@b.com", "@everyone", "@here", "@channel",
      "@eng", "@#eng", "@#Engineering", "@ada", "@ada_2", "@ada_2_2", "@pat", "@chief_researcher",
      "@\u6771\u4EAC", "@i\u0307", "@\u03BF\u03C2", "@\uFF42ob", "@b\u043Eb", "@bob\u0301"};
  return rc::gen::exec([] {
    std::string body;
    const int n = *rc::gen::inRange(0, 40);
    for (int i = 0; i < n; ++i) {
      if (*rc::gen::inRange(0, 3) == 0) {
        body += *rc::gen::weightedElement<std::string>({{6, " "}, {1, "("}, {1, ""}, {1, "\n"}});
        body += *rc::gen::weightedElement<std::string>({{5, "@"}, {1, "@#"}}) + *gen_id();
      } else {
        body += *rc::gen::elementOf(fragments);
      }
    }
    return body;
  });
}

inline rc::Gen<std::uint32_t> gen_hop_count() {
  constexpr std::uint32_t kMax = std::numeric_limits<std::uint32_t>::max();
  return rc::gen::oneOf(rc::gen::inRange<std::uint32_t>(0, 5), rc::gen::inRange<std::uint32_t>(kMax - 4, kMax),
                        rc::gen::just(kMax), rc::gen::arbitrary<std::uint32_t>());
}

inline rc::Gen<MentionDispatchPolicy> gen_policy() {
  return rc::gen::exec([] {
    return MentionDispatchPolicy{.enabled = *rc::gen::weightedElement<bool>({{1, false}, {5, true}}),
                                 .max_hops = *gen_hop_count()};
  });
}

inline rc::Gen<MentionDispatchInput> gen_dispatch_input() {
  return rc::gen::exec([] {
    return MentionDispatchInput{
        .key = {.trigger_sequence = *rc::gen::arbitrary<std::uint64_t>()},
        .conversation = {.desk_id = *rc::gen::elementOf(std::vector<std::string>{"eng", "General"}),
                         .thread_root = *gen_optional(rc::gen::arbitrary<std::uint64_t>())},
        .author_id = *gen_id(),
        .content = *gen_body(),
        .mentions = *gen_mentions(),
        .hop = *gen_hop_count()};
  });
}

inline rc::Gen<std::vector<SelectorCandidate>> gen_candidates() {
  return rc::gen::exec([] {
    std::vector<SelectorCandidate> candidates;
    for (const std::string& id : *gen_ids(4)) {
      candidates.push_back({.id = id, .label = id, .role = "Teammate"});
    }
    return candidates;
  });
}

// Selector outputs built from candidate ids with wrappers, periods, whitespace and noise.
inline rc::Gen<std::string> gen_selector_output(const std::vector<SelectorCandidate>& candidates) {
  return rc::gen::exec([candidates] {
    std::string core = candidates.empty() || *rc::gen::inRange(0, 5) == 0
                           ? *gen_id()
                           : (*rc::gen::elementOf(candidates)).id;
    if (*rc::gen::arbitrary<bool>()) {
      for (char& c : core) {
        if (c >= 'a' && c <= 'z' && *rc::gen::arbitrary<bool>()) c = static_cast<char>(c - 'a' + 'A');
      }
    }
    const std::vector<std::string> pads{"", " ", "\t", "\n", "\u00A0", "\u2003"};
    const std::vector<std::string> wraps{"", "'", "\"", "`", "**", "''"};
    const std::string wrap = *rc::gen::elementOf(wraps);
    const std::string close = *rc::gen::weightedElement<std::string>({{6, wrap}, {1, "'"}, {1, ""}});
    std::string out = *rc::gen::elementOf(pads) + wrap + *rc::gen::elementOf(pads) + core +
                      *rc::gen::elementOf(pads) + close;
    out += *rc::gen::elementOf(std::vector<std::string>{"", "", ".", "..", " .", "!", " because", ","});
    out += *rc::gen::elementOf(pads);
    return out;
  });
}

inline rc::Gen<SelectionEvaluation> gen_evaluation(const std::vector<SelectorCandidate>& candidates) {
  return rc::gen::exec([candidates] {
    SelectionEvaluation e;
    e.choice = candidates.empty() || *rc::gen::inRange(0, 6) == 0 ? *gen_id() : (*rc::gen::elementOf(candidates)).id;
    std::uint32_t left = kProbabilityScale;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const bool last = i + 1 == candidates.size();
      const std::uint32_t p = last ? left : *rc::gen::inRange<std::uint32_t>(0, left + 1);
      left -= p;
      e.probabilities.push_back({.candidate_id = candidates[i].id, .probability = {p}});
    }
    switch (*rc::gen::inRange(0, 8)) {  // sometimes break the distribution
      case 0: if (!e.probabilities.empty()) e.probabilities.pop_back(); break;
      case 1: if (!e.probabilities.empty()) e.probabilities.front().probability.parts_per_million += 1; break;
      case 2: e.probabilities.push_back({.candidate_id = *gen_id(), .probability = {0}}); break;
      case 3: if (!e.probabilities.empty()) e.probabilities.front().probability.parts_per_million = kProbabilityScale + 1; break;
      default: break;
    }
    e.confidence = {*rc::gen::oneOf(rc::gen::inRange<std::uint32_t>(0, kProbabilityScale + 1),
                                    rc::gen::just(kProbabilityScale + 1))};
    return e;
  });
}

inline rc::Gen<std::optional<std::string>> gen_chat() {
  return gen_optional(rc::gen::elementOf(std::vector<std::string>{
      "", "main", "MAIN", "General", "gEnErAl", " main", "eng", "eng", "Engineering", "Engineering",
      "Shared", "ops", "Operations", "alice", "Alice", "dm:alice", "dm:Alice", "DM:bob", "bob",
      "Bobs", "missing", "General "}));
}

}  // namespace thm::properties
