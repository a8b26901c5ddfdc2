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
    "alice",   "Alice",        "bob",          "b",     "ba",  "eng",  "Engineering",
    "here",    "everyone",     "chief-khaliq", "chief", "a_1", "orch", "\u0130",
    "i\u0307", "\u039F\u03A3", "\u6771\u4EAC", "x",     "a@b"};

inline rc::Gen<std::string> gen_id() { return rc::gen::elementOf(kIds); }

// A number in [low, high), uniformly, whatever the size.
inline int uniform(int low, int high) {
  std::vector<int> values;
  for (int v = low; v < high; ++v) values.push_back(v);
  return *rc::gen::elementOf(values);
}

// True once in `n` times, whatever the size.
inline bool one_in(std::size_t n) {
  return *rc::gen::weightedElement<bool>({{1, true}, {n - 1, false}});
}

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
      const bool taken =
          std::ranges::any_of(roster.members, [&](const RosterMember& m) { return m.id == id; });
      if (taken && !allow_invalid) continue;
      const auto name = *gen_optional(rc::gen::elementOf(std::vector<std::string>{
          "Alice", "Bob", "Alice A", " ", "Eng", "here", "\u0130", "Shared"}));
      roster.members.push_back({.id = id, .name = name});
    }
    const std::vector<std::string> labels{"Ada",          "Ada", "Ada 2",
                                          "Ada Lovelace", "Pat", "  Chief--Researcher  ",
                                          "\u6771\u4EAC", "bob", "Eng"};
    const int people = *rc::gen::inRange(0, 4);
    for (int i = 0; i < people; ++i) {
      roster.people.push_back(
          {.id = "p" + std::to_string(i), .label = *rc::gen::elementOf(labels)});
    }
    if (allow_invalid && *rc::gen::arbitrary<bool>())
      roster.people.push_back({.id = " ", .label = "x"});
    roster.retired = *gen_ids(2);
    roster.tombstoned = *gen_ids(1);
    return roster;
  });
}

// Sizes at which a prepared team's indexes change shape: a FlatIndex of at least 8 slots,
// at most three quarters full, doubles past 6, 12, 24, 48 and 96 keys; repeats are found
// pair by pair up to kPairwiseRepeatLimit (32) and by a hash past it. One size each side of
// every edge, and the edge.
inline const std::vector<int> kIndexEdges{5,  6,  7,  11, 12, 13, 23, 24, 25,
                                          31, 32, 33, 47, 48, 49, 95, 96, 97};

// A roster of one of those sizes: generated ids, a few of the pool's, and names shared on
// purpose: a retired or tombstoned member named as an active one (a namesake the alias
// table must not serve), two active members of one name (no alias), names that differ only
// in case. Now and then an id twice (invalid).
inline rc::Gen<RosterSnapshot> gen_large_roster() {
  return rc::gen::exec([] {
    RosterSnapshot roster;
    const int size = *rc::gen::elementOf(kIndexEdges);
    const std::vector<std::string> names{"Ada", "ada", "ADA", "Bob", "Quinn", "Rook", "Sam"};
    for (int i = 0; i < size; ++i) {
      const std::string id = i < 3 ? std::vector<std::string>{"orch", "alice", "bob"}[i]
                                   : "agent-" + std::to_string(i);
      std::optional<std::string> name;
      if (one_in(2)) name = *rc::gen::elementOf(names);
      roster.members.push_back({.id = id, .name = name});
      if (name && one_in(3)) {  // a namesake, retired or tombstoned
        roster.members.push_back({.id = id + "-old", .name = name});
        (one_in(2) ? roster.retired : roster.tombstoned).push_back(id + "-old");
      }
    }
    for (const std::string& id : *gen_ids(3)) {
      if (std::ranges::none_of(roster.members, [&](const RosterMember& m) { return m.id == id; })) {
        roster.members.push_back({.id = id, .name = std::nullopt});
      }
    }
    roster.people = {{.id = "p1", .label = "Ada"}, {.id = "p2", .label = "Pat"}};
    for (int i = 0; i < size / 8; ++i) {
      roster.retired.push_back((*rc::gen::elementOf(roster.members)).id);
    }
    if (one_in(12)) roster.members.push_back(*rc::gen::elementOf(roster.members));
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
        {"eng", "Engineering"}, {"ops", "Operations"},  {"d1", "Shared"},
        {"d2", "Shared"},       {"General", "General"}, {"bob", "Bobs"},
        {"main", "x"},          {"eng", "Dup"},         {"here", "Here"}};
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
      Desk desk{.id = id,
                .name = name,
                .members = gen_member_ids(),
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
      for (int i = 0; i < rows; ++i)
        desks.member_additions.push_back(
            {.desk_id = *rc::gen::elementOf(desk_ids), .agent_id = *gen_id()});
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
          case 0:
            if (!ordered.empty()) ordered.pop_back();
            break;
          case 1:
            if (!ordered.empty()) ordered.push_back(ordered.front());
            break;
          case 2:
            ordered.push_back(*gen_id());
            break;
          default:
            break;
        }
        desks.orders.push_back({.desk_id = desk_id, .ordered = ordered});
      }
    }
    desks.retired = *gen_ids(2);
    desks.tombstoned = *gen_ids(1);
    return desks;
  });
}

// Desks whose names differ only in case ("Ops", "ops", "OPS", and now and then a second
// "Ops"), staffed from `staff`, before the desks `gen_desks` makes.
inline rc::Gen<DeskSnapshot> gen_case_twin_desks(std::vector<std::string> staff) {
  return rc::gen::exec([staff] {
    DeskSnapshot desks = *gen_desks(staff);
    std::vector<Desk> twins;
    for (const auto& [id, desk_name] : std::vector<std::pair<std::string, std::string>>{
             {"ops-1", "Ops"}, {"ops-2", "ops"}, {"ops-3", "OPS"}}) {
      Desk desk{.id = id, .name = desk_name};
      for (int i = 0; i < 3 && !staff.empty(); ++i)
        desk.members.push_back(*rc::gen::elementOf(staff));
      std::ranges::sort(desk.members);
      desk.members.erase(std::unique(desk.members.begin(), desk.members.end()), desk.members.end());
      if (one_in(2)) desk.responder_mode = ResponderMode::Auto;
      twins.push_back(desk);
    }
    if (one_in(3)) twins.push_back({.id = "ops-4", .name = "Ops", .members = twins[0].members});
    desks.declared.insert(desks.declared.begin(), twins.begin(), twins.end());
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
      case 0:
        return PersonTarget{"p" + std::to_string(*rc::gen::inRange(0, 3))};
      case 1:
        return DeskTarget{
            *rc::gen::elementOf(std::vector<std::string>{"eng", "ops", "d1", "missing"})};
      case 2:
        return EveryoneTarget{};
      default:
        return AgentTarget{*gen_id()};
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
      case 0:
        return AgentAuthor{*gen_id()};
      case 1:
        return PersonAuthor{"p" + std::to_string(*rc::gen::inRange(0, 3))};
      default:
        return OtherAuthor{};
    }
  });
}

// The fragments bodies are built from: whitespace of every kind, punctuation, code spans
// and fences, block markers, an email, and mentions of every kind.
inline const std::vector<std::string> kBodyFragments{" ",
                                                     " ",
                                                     "\n",
                                                     "\n\n",
                                                     "\r\n",
                                                     "\t",
                                                     "\v",
                                                     "\f",
                                                     "\u00A0",
                                                     "\u2028",
                                                     "(",
                                                     "[",
                                                     "{",
                                                     ")",
                                                     ",",
                                                     ".",
                                                     ";",
                                                     ":",
                                                     "!",
                                                     "?",
                                                     "'",
                                                     "\"",
                                                     "-",
                                                     "/",
                                                     "#",
                                                     "_",
                                                     "x",
                                                     "1",
                                                     "\u00E9",
                                                     "\u3000",
                                                     "`",
                                                     "``",
                                                     "```",
                                                     "```\n",
                                                     "````\n",
                                                     "~~~\n",
                                                     "~~~~\n",
                                                     "    ",
                                                     "\\",
                                                     "\\`",
                                                     "# ",
                                                     "---\n",
                                                     "***\n",
                                                     "===\n",
                                                     "- ",
                                                     "> ",
                                                     "1. ",
                                                     "@",
                                                     "@@",
                                                     "@#",
                                                     "x@",
                                                     "mail a@b.com",
                                                     "@everyone",
                                                     "@here",
                                                     "@channel",
                                                     "@eng",
                                                     "@#eng",
                                                     "@#Engineering",
                                                     "@ada",
                                                     "@ada_2",
                                                     "@ada_2_2",
                                                     "@pat",
                                                     "@chief_researcher",
                                                     "@\u6771\u4EAC",
                                                     "@i\u0307",
                                                     "@\u03BF\u03C2",
                                                     "@\uFF42ob",
                                                     "@b\u043Eb",
                                                     "@bob\u0301"};

// A mention in running text: a space, a bracket, a line break or nothing, then `@` or `@#`
// and an id.
inline std::string mention_fragment() {
  std::string fragment =
      *rc::gen::weightedElement<std::string>({{6, " "}, {1, "("}, {1, ""}, {1, "\n"}});
  fragment += *rc::gen::weightedElement<std::string>({{5, "@"}, {1, "@#"}}) + *gen_id();
  return fragment;
}

// Message bodies built from fragments that exercise the grammar and the code masking.
inline rc::Gen<std::string> gen_body() {
  return rc::gen::exec([] {
    std::string body;
    const int n = *rc::gen::inRange(0, 40);
    for (int i = 0; i < n; ++i) {
      if (*rc::gen::inRange(0, 3) == 0) {
        body += mention_fragment();
      } else {
        body += *rc::gen::elementOf(kBodyFragments);
      }
    }
    return body;
  });
}

// ---- bodies line by line, for the block rules of the code mask (SPEC §1.5) ------------------
// Every block rule changes the mask only beside a span that is open across lines, or where
// an indented line follows it; so these bodies are lines of paragraph text with unmatched
// backticks (plain, escaped, after two backslashes, in runs of two) and `@mentions`, mixed
// with lines of every class at its edges, before and after them. Choices here do not scale
// with RapidCheck's size (gen::inRange does), so small early tests reach every class too.

// Paragraph text: backtick runs, escapes and mentions among words.
inline rc::Gen<std::string> gen_text_line() {
  static const std::vector<std::string> fragments{
      "`", "`",  "`",     "``",    "\\`",      "\\\\`",  "\\``",   "x",       "x", "a b",
      " ", "\t", "@bob ", " @bob", " @alice ", "(@eng)", " @#eng", "a@b.com", "#", "*",
      "-", "=",  "~",     "\\",    "```",      "\r",     "- ",     "1. ",     "> "};
  return rc::gen::exec([] {
    std::string line;
    const int n = uniform(1, 6);
    for (int i = 0; i < n; ++i) line += *rc::gen::elementOf(fragments);
    return line;
  });
}

// What may follow a block marker on its line: nothing, blanks, text, a backtick, a mention.
inline rc::Gen<std::string> gen_marker_tail() {
  return rc::gen::weightedElement<std::string>({{6, ""},
                                                {2, " "},
                                                {2, "\t"},
                                                {1, " \t "},
                                                {2, " x"},
                                                {1, "x"},
                                                {2, " `"},
                                                {1, " @bob"},
                                                {1, " `@bob`"},
                                                {1, "`"},
                                                {1, " ~"}});
}

// Before a block marker: up to three spaces mostly; four, or a tab, at the edge.
inline rc::Gen<std::string> gen_marker_indent() {
  return rc::gen::weightedElement<std::string>({{12, ""},
                                                {2, " "},
                                                {2, "  "},
                                                {3, "   "},
                                                {3, "    "},
                                                {2, "\t"},
                                                {1, " \t"},
                                                {1, "   \t"}});
}

// `count` markers, some apart (spaces or tabs between them), one sometimes of another kind.
inline std::string marker_run(char marker, int count, const std::string& others) {
  std::string run;
  const bool spaced = one_in(3);
  const int mixed = one_in(6) ? uniform(0, count) : -1;
  for (int i = 0; i < count; ++i) {
    if (spaced && i > 0) run += *rc::gen::element<std::string>(" ", "\t", "  ");
    run += i == mixed ? *rc::gen::elementOf(others) : marker;
  }
  return run;
}

// One line (without its ending) of some block class, at the class's edges: half of the
// time composed (indent, markers, tail), half of the time one of the class's edge lines.
inline rc::Gen<std::string> gen_block_line() {
  static const std::vector<std::string> headings{
      "#",       "##",      "######", "#######",  "####### x",     "# x",
      "#\tx",    "#\t",     "#x",     "#`",       "#\\`",          " # x",
      "   ## x", "    # x", "\t# x",  "# `@bob`", "## a `b` @bob", "# `` x `` @bob",
      "# ` x",   "#### `"};
  static const std::vector<std::string> breaks{
      "***",  "**",    "* *",   "* * *",  "*\t*\t*", "*-*",     "-*-",       "_*_",
      "*_*",  "___",   "__",    "_ _ _",  "- - -",   "-\t-\t-", "---",       "- -",
      "***x", "*** x", "***\t", "   ***", "    ***", "\t***",   "*  *  *  *"};
  static const std::vector<std::string> underlines{
      "=",     "===",   "==-",  "=-=", "-=",   "-=-",   "--",     "-",    "= =",  "=\t=",
      "=== x", "===\t", "=== ", "==`", "  ==", "   --", "    ==", "\t==", " \t--"};
  return rc::gen::exec([]() -> std::string {
    const std::string indent = *gen_marker_indent();
    const bool edge = *rc::gen::arbitrary<bool>();
    const int kind =
        *rc::gen::weightedElement<int>({{2, 0}, {2, 1}, {2, 2}, {1, 3}, {1, 4}, {1, 5}, {2, 6}});
    switch (kind) {
      case 0: {  // ATX heading: 1-7 #, then a space, a tab, the end or another byte
        if (edge) return *rc::gen::elementOf(headings);
        const int hashes = *rc::gen::weightedElement<int>({{3, 1}, {1, 2}, {1, 6}, {2, 7}});
        const std::string after = *rc::gen::weightedElement<std::string>(
            {{3, " "}, {2, "\t"}, {3, ""}, {1, "x"}, {1, "`"}, {1, "\\"}});
        return indent + std::string(static_cast<std::size_t>(hashes), '#') + after +
               (after.empty()                 ? std::string()
                : *rc::gen::arbitrary<bool>() ? *gen_marker_tail()
                                              : *gen_text_line());
      }
      case 1: {  // thematic break: 2-4 of * - _, apart or not, mixed or not
        if (edge) return *rc::gen::elementOf(breaks);
        const char marker = *rc::gen::element('*', '-', '_');
        return indent + marker_run(marker, uniform(2, 5), "*-_=x") + *gen_marker_tail();
      }
      case 2: {  // setext underline: a run of = or -, apart or not, mixed or not; a tail
        if (edge) return *rc::gen::elementOf(underlines);
        const char marker = *rc::gen::element('=', '-');
        return indent + marker_run(marker, uniform(1, 5), "=-") + *gen_marker_tail();
      }
      case 3: {  // fence opener or closer: 2-5 ` or ~, an info string or a tail
        const char marker = *rc::gen::element('`', '~');
        const int run = *rc::gen::weightedElement<int>({{1, 2}, {5, 3}, {2, 4}, {1, 5}});
        const std::string info = *rc::gen::weightedElement<std::string>(
            {{4, ""}, {2, "js"}, {1, " a`b"}, {1, "`"}, {1, " ~"}, {2, *gen_marker_tail()}});
        return indent + std::string(static_cast<std::size_t>(run), marker) + info;
      }
      case 4:  // indented: four columns or more (a tab reaches the next multiple of four)
        return *rc::gen::element<std::string>("    ", "\t", " \t", "   \t", "   ", "     ",
                                              "  \t ") +
               (one_in(4) ? std::string() : *gen_text_line());
      case 5:  // blank, or nearly
        return *rc::gen::element<std::string>("", "", " ", "\t", "  \t ", "    ", "\v");
      default:  // list items, quotes and plain text are paragraph text
        return *rc::gen::element<std::string>("", "", "- ", "* ", "1. ", "> ") + *gen_text_line();
    }
  });
}

// A fenced block: an opener, a few lines of content (text, blank, indented, an inner
// marker), and a closer that is right or wrong at one edge (shorter, longer, the other
// marker, text after it, four spaces before it), or none.
inline rc::Gen<std::vector<std::string>> gen_fenced_block() {
  return rc::gen::exec([] {
    const char marker = *rc::gen::element('`', '~');
    const auto run = static_cast<std::size_t>(uniform(3, 5));
    std::vector<std::string> lines{*gen_marker_indent() + std::string(run, marker) +
                                   *rc::gen::element<std::string>("", "", "js", " a`b", "`", " ~")};
    const int content = uniform(0, 3);
    for (int i = 0; i < content; ++i) {
      lines.push_back(
          *rc::gen::weightedOneOf<std::string>({{3, gen_text_line()},
                                                {1, rc::gen::element<std::string>("", " ", "\t")},
                                                {1, gen_block_line()}}));
    }
    const char closer =
        *rc::gen::weightedElement<char>({{5, marker}, {1, marker == '`' ? '~' : '`'}});
    const std::size_t closer_run =
        *rc::gen::weightedElement<std::size_t>({{6, run}, {1, run - 1}, {1, run + 1}});
    if (!one_in(8)) {
      lines.push_back(*gen_marker_indent() + std::string(closer_run, closer) +
                      *rc::gen::weightedOneOf<std::string>(
                          {{3, rc::gen::just(std::string())}, {2, gen_marker_tail()}}));
    }
    return lines;
  });
}

// A body of lines: paragraph text, block lines (some followed by an indented line, which is
// code only where no paragraph is left open), fenced blocks, and sandwiches: a line that
// opens a span (one or two backticks), block lines, and a line with the closing run, each
// with mentions. Lines end in LF or CRLF; the last one sometimes has no ending, a bare `\r`,
// or is an indented line of blanks and a bare `\r` after a blank line (no CRLF there).
inline rc::Gen<std::string> gen_block_body() {
  return rc::gen::exec([] {
    std::vector<std::string> lines;
    // Block lines, then sometimes an indented line. After a blank line (`fresh`) no paragraph
    // is open before them, so the indented line tells whether they leave one open.
    const auto add_block_lines = [&lines](bool fresh) {
      if (fresh) lines.emplace_back();
      for (const std::string& line : *rc::gen::weightedOneOf<std::vector<std::string>>(
               {{3, rc::gen::container<std::vector<std::string>>(1, gen_block_line())},
                {1, rc::gen::container<std::vector<std::string>>(2, gen_block_line())},
                {1, gen_fenced_block()}})) {
        lines.push_back(line);
      }
      if (fresh || *rc::gen::arbitrary<bool>()) {
        lines.push_back(*rc::gen::element<std::string>("    ", "\t", "   \t") +
                        *rc::gen::element<std::string>("x", "`@bob`", "@bob", "`"));
      }
    };
    const int pieces = uniform(1, 7);
    for (int i = 0; i < pieces; ++i) {
      switch (uniform(0, 10)) {
        case 0:
          lines.push_back(*gen_text_line());
          break;
        case 1:
        case 2:
        case 3:
          add_block_lines(*rc::gen::arbitrary<bool>());
          break;
        case 4:
          for (const std::string& line : *gen_fenced_block()) lines.push_back(line);
          break;
        default: {  // a span open across block lines
          const std::string ticks(*rc::gen::weightedElement<std::size_t>({{3, 1}, {1, 2}}), '`');
          lines.push_back(*rc::gen::element<std::string>("a ", "@bob ", "x", "- ", "\\") + ticks +
                          *rc::gen::element<std::string>("x", " @bob", "@alice ", ""));
          add_block_lines(false);
          lines.push_back(*rc::gen::element<std::string>("", "y ", "@alice ", "\\") + ticks +
                          *rc::gen::element<std::string>("", " @bob", " z"));
          break;
        }
      }
    }
    std::string body;
    const bool crlf = one_in(3);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      body += lines[i];
      if (i + 1 < lines.size()) body += crlf || one_in(6) ? "\r\n" : "\n";
    }
    body += *rc::gen::weightedElement<std::string>(
        {{6, ""}, {3, "\n"}, {2, "\r\n"}, {1, "\r"}, {1, "\n\n    \r"}, {1, "\n\n\t \r"}});
    return body;
  });
}

// A body spread out: pieces of gen_block_body between runs of up to 300 bytes of plain text,
// so that the scan (SPEC §1.5) skips stretches 128 bytes at a time and meets the blocks at
// every offset of its 64-byte stretches; `~` and backtick pairs land on their edges too.
inline rc::Gen<std::string> gen_spread_body() {
  return rc::gen::exec([] {
    std::string body;
    const int pieces = uniform(1, 5);
    for (int i = 0; i < pieces; ++i) {
      body.append(static_cast<std::size_t>(uniform(0, 300)), one_in(3) ? ' ' : 'x');
      if (one_in(3)) body += *rc::gen::element<std::string>("\n\n", "``", "~~", "`");
      body += *gen_block_body();
    }
    return body;
  });
}

inline rc::Gen<std::uint32_t> gen_hop_count() {
  constexpr std::uint32_t kMax = std::numeric_limits<std::uint32_t>::max();
  return rc::gen::oneOf(rc::gen::inRange<std::uint32_t>(0, 5),
                        rc::gen::inRange<std::uint32_t>(kMax - 4, kMax), rc::gen::just(kMax),
                        rc::gen::arbitrary<std::uint32_t>());
}

// Hand-off lists over the id pool, `staff` first when given: sometimes empty, sometimes
// with a pair repeated.
inline rc::Gen<std::vector<Handoff>> gen_handoffs(std::vector<std::string> staff = {}) {
  return rc::gen::exec([staff] {
    std::vector<std::string> ids = staff.empty() ? kIds : staff;
    std::vector<Handoff> pairs;
    const int n = *rc::gen::weightedElement<int>({{1, 0}, {3, 2}, {3, 5}, {1, 12}});
    for (int i = 0; i < n; ++i) {
      pairs.push_back(
          {.source_id = *rc::gen::elementOf(ids), .target_id = *rc::gen::elementOf(ids)});
    }
    if (!pairs.empty() && one_in(4)) pairs.push_back(pairs.front());
    return pairs;
  });
}

// The policy: each rule of a chain's shape on a quarter of the time, at its edges.
inline rc::Gen<MentionDispatchPolicy> gen_policy(std::vector<std::string> staff = {}) {
  return rc::gen::exec([staff] {
    MentionDispatchPolicy policy{
        .enabled = *rc::gen::weightedElement<bool>({{1, false}, {5, true}}),
        .max_hops = *gen_hop_count()};
    policy.no_return = one_in(4);
    if (one_in(4)) {
      policy.max_turns_per_agent = *rc::gen::weightedElement<std::uint32_t>(
          {{1, 0}, {4, 1}, {4, 2}, {1, 3}, {1, std::numeric_limits<std::uint32_t>::max()}});
    }
    if (one_in(4)) policy.allowed_handoffs = *gen_handoffs(staff);
    return policy;
  });
}

// A chain's earlier authors: mostly a few ids of the pool (`staff` first when given), with
// repeats, so that the shape rules meet targets that did and did not answer before.
inline rc::Gen<std::vector<std::string>> gen_chain(std::vector<std::string> staff = {}) {
  return rc::gen::exec([staff] {
    std::vector<std::string> ids = staff.empty() ? kIds : staff;
    std::vector<std::string> chain;
    const int n = *rc::gen::weightedElement<int>({{2, 0}, {3, 1}, {3, 2}, {2, 4}, {1, 9}});
    for (int i = 0; i < n; ++i) chain.push_back(*rc::gen::elementOf(ids));
    return chain;
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
        .hop = *gen_hop_count(),
        .chain = *gen_chain()};
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
        if (c >= 'a' && c <= 'z' && *rc::gen::arbitrary<bool>())
          c = static_cast<char>(c - 'a' + 'A');
      }
    }
    const std::vector<std::string> pads{"", " ", "\t", "\n", "\u00A0", "\u2003"};
    const std::vector<std::string> wraps{"", "'", "\"", "`", "**", "''"};
    const std::string wrap = *rc::gen::elementOf(wraps);
    const std::string close =
        *rc::gen::weightedElement<std::string>({{6, wrap}, {1, "'"}, {1, ""}});
    std::string out = *rc::gen::elementOf(pads) + wrap + *rc::gen::elementOf(pads) + core +
                      *rc::gen::elementOf(pads) + close;
    out += *rc::gen::elementOf(
        std::vector<std::string>{"", "", ".", "..", " .", "!", " because", ","});
    out += *rc::gen::elementOf(pads);
    return out;
  });
}

inline rc::Gen<SelectionEvaluation> gen_evaluation(
    const std::vector<SelectorCandidate>& candidates) {
  return rc::gen::exec([candidates] {
    SelectionEvaluation e;
    e.choice = candidates.empty() || *rc::gen::inRange(0, 6) == 0
                   ? *gen_id()
                   : (*rc::gen::elementOf(candidates)).id;
    std::uint32_t left = kProbabilityScale;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const bool last = i + 1 == candidates.size();
      const std::uint32_t p = last ? left : *rc::gen::inRange<std::uint32_t>(0, left + 1);
      left -= p;
      e.probabilities.push_back({.candidate_id = candidates[i].id, .probability = {p}});
    }
    switch (*rc::gen::inRange(0, 8)) {  // sometimes break the distribution
      case 0:
        if (!e.probabilities.empty()) e.probabilities.pop_back();
        break;
      case 1:
        if (!e.probabilities.empty()) e.probabilities.front().probability.parts_per_million += 1;
        break;
      case 2:
        e.probabilities.push_back({.candidate_id = *gen_id(), .probability = {0}});
        break;
      case 3:
        if (!e.probabilities.empty())
          e.probabilities.front().probability.parts_per_million = kProbabilityScale + 1;
        break;
      default:
        break;
    }
    e.confidence = {*rc::gen::oneOf(rc::gen::inRange<std::uint32_t>(0, kProbabilityScale + 1),
                                    rc::gen::just(kProbabilityScale + 1))};
    return e;
  });
}

inline rc::Gen<std::optional<std::string>> gen_chat() {
  return gen_optional(rc::gen::elementOf(std::vector<std::string>{
      "",           "main",  "MAIN",        "General",     "gEnErAl",  " main",
      "eng",        "eng",   "Engineering", "Engineering", "Shared",   "ops",
      "Operations", "alice", "Alice",       "dm:alice",    "dm:Alice", "DM:bob",
      "bob",        "Bobs",  "missing",     "General "}));
}

// A policy with each rule of the shape on half of the time.
inline MentionDispatchPolicy gen_shaped_policy(const std::vector<std::string>& staff) {
  MentionDispatchPolicy policy = *gen_policy(staff);
  policy.no_return = one_in(2);
  policy.max_turns_per_agent = std::nullopt;
  if (one_in(2)) policy.max_turns_per_agent = static_cast<std::uint32_t>(uniform(0, 4));
  policy.allowed_handoffs = std::nullopt;
  if (one_in(2)) policy.allowed_handoffs = *gen_handoffs(staff);
  return policy;
}

// A reply by a member, mostly, naming members, with a chain that often holds whom it names,
// and, now and then, a pair of the graph as its author and first target.
inline MentionDispatchInput gen_reply(const RosterSnapshot& roster,
                                      const MentionDispatchPolicy& policy) {
  MentionDispatchInput input = *gen_dispatch_input();
  const auto staff = member_ids(roster);
  input.chain = *gen_chain(staff);
  if (!staff.empty() && !one_in(4)) input.author_id = *rc::gen::elementOf(staff);
  if (policy.max_hops > 0) input.hop = std::min(input.hop, policy.max_hops - 1);
  for (Mention& mention : input.mentions) {
    if (!staff.empty() && one_in(2)) mention.target = AgentTarget{*rc::gen::elementOf(staff)};
    const auto* agent = std::get_if<AgentTarget>(&mention.target);
    if (agent != nullptr && one_in(3)) input.chain.push_back(agent->id);
  }
  if (policy.allowed_handoffs && !policy.allowed_handoffs->empty() && one_in(2)) {
    const Handoff pair = *rc::gen::elementOf(*policy.allowed_handoffs);
    input.author_id = pair.source_id;
    input.mentions.insert(
        input.mentions.begin(),
        {.target = AgentTarget{pair.target_id}, .text = "@" + pair.target_id, .offset = 0});
  }
  return input;
}

}  // namespace thm::properties
