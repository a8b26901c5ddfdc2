#include "thm/resolution/resolve.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "thm/team/team.hpp"

namespace thm {
namespace {

// A team: agents alice ("Alice"), bob, chief-khaliq, eng-bot; person p1 "Ada Lovelace";
// desk eng "Engineering".
struct Team {
  RosterSnapshot roster{.members = {{.id = "alice", .name = "Alice"},
                                    {.id = "bob"},
                                    {.id = "chief-khaliq"},
                                    {.id = "b"},
                                    {.id = "ba"}},
                        .people = {{.id = "p1", .label = "Ada Lovelace"}}};
  DeskSnapshot desks{.declared = {{.id = "eng", .name = "Engineering"}}};

  [[nodiscard]] std::vector<Mention> resolve(std::string_view body,
                                             const MentionAuthor& author = OtherAuthor{}) const {
    return resolve_mentions(body, std::nullopt, author, Roster(roster), DeskSet(desks));
  }
  [[nodiscard]] std::vector<Mention> revalidate(std::string_view body,
                                                const std::vector<Mention>& supplied,
                                                const MentionAuthor& author = OtherAuthor{}) const {
    return resolve_mentions(body, std::span<const Mention>(supplied), author, Roster(roster),
                            DeskSet(desks));
  }
};

Mention agent(std::string id, std::string text, std::size_t offset, bool quiet = false) {
  return {.target = AgentTarget{std::move(id)},
          .text = std::move(text),
          .offset = offset,
          .quiet = quiet};
}

// The (text, offset) pairs of resolved mentions, for compact expectations.
std::vector<std::pair<std::string, std::size_t>> spans(const std::vector<Mention>& mentions) {
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const Mention& m : mentions) out.emplace_back(m.text, m.offset);
  return out;
}

using Spans = std::vector<std::pair<std::string, std::size_t>>;

TEST(ResolveMentionsTest, OpensOnlyAtStartAfterAsciiWhitespaceOrOpeningBrackets) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("@bob")), (Spans{{"@bob", 0}}));
  // After "x" so that a leading tab is not an indented code block.
  for (const char* before : {" ", "\t", "\n", "\f", "\r", "(", "[", "{"}) {
    EXPECT_EQ(spans(team.resolve(std::string("x") + before + "@bob")), (Spans{{"@bob", 2}}))
        << before;
  }
  for (const char* before : {"x", "1", ";", "-", "@", "\v", "\u00A0", "\u3000", ")", "`"}) {
    EXPECT_TRUE(team.resolve(std::string("x ") + before + "@bob").empty()) << before;
  }
}

TEST(ResolveMentionsTest, EmailsAndGluedTextAreNotMentions) {
  const Team team;
  EXPECT_TRUE(team.resolve("x@alice").empty());
  EXPECT_TRUE(team.resolve("mail alice@example.com").empty());
  EXPECT_TRUE(team.resolve("@alice@example.com").empty());
  EXPECT_TRUE(team.resolve("prefix;@alice").empty());
}

TEST(ResolveMentionsTest, EveryAtIsTriedEvenInsideARejectedToken) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("@alice(@bob)")), (Spans{{"@bob", 7}}));
  EXPECT_EQ(spans(team.resolve("@@bob")), Spans{});
  EXPECT_EQ(spans(team.resolve("(@@bob [@bob")), (Spans{{"@bob", 8}}));
}

TEST(ResolveMentionsTest, AliasMustStartWithALetterDigitOrUnderscore) {
  const Team team;
  for (const char* body : {"@", "@#", "@ alice", "@-bob", "@#-eng", "@.bob"}) {
    EXPECT_TRUE(team.resolve(body).empty()) << body;
  }
}

TEST(ResolveMentionsTest, TerminatorsEndTheAliasAndOthersDoNot) {
  const Team team;
  for (const char* after : {",", ";", ".", "?", "!", ":", ")", "]", "}", "'", "\"", " ", "\v",
                            "\u00A0", "\u2028", "\u3000"}) {
    EXPECT_EQ(spans(team.resolve(std::string("@bob") + after + "x")), (Spans{{"@bob", 0}}))
        << after;
  }
  for (const char* after : {"-", "/", "#", "(", "[", "{", "`", "_", "9", "x"}) {
    EXPECT_TRUE(team.resolve(std::string("@bob") + after).empty()) << after;
  }
}

TEST(ResolveMentionsTest, EveryAsciiByteTerminatesOrNotAsTheSpecSays) {
  const Team team;
  const std::string_view terminators = ",;.?!:)]}'\" \t\n\v\f\r";
  for (int byte = 1; byte < 0x80; ++byte) {
    const char c = static_cast<char>(byte);
    const auto found = team.resolve(std::string("@bob") + c + "x");
    const bool ends = terminators.find(c) != std::string_view::npos;
    EXPECT_EQ(found.size(), ends ? 1U : 0U) << byte;
  }
}

TEST(ResolveMentionsTest, WholeTokensOnlyNeverPrefixesOrTruncations) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("@chief-khaliq can you review?")), (Spans{{"@chief-khaliq", 0}}));
  EXPECT_TRUE(team.resolve("@chief can you").empty());
  EXPECT_TRUE(team.resolve("@bob-dev deploy").empty());
  EXPECT_EQ(spans(team.resolve("@ba @b @bar")), (Spans{{"@ba", 0}, {"@b", 4}}));
}

TEST(ResolveMentionsTest, MatchingFoldsCaseFullyButNothingElse) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("@ALICE @Bob")), (Spans{{"@ALICE", 0}, {"@Bob", 7}}));
  EXPECT_TRUE(team.resolve("@b\u043Eb").empty());            // Cyrillic o
  EXPECT_TRUE(team.resolve("@\uFF42\uFF4F\uFF42").empty());  // full-width letters
  EXPECT_TRUE(team.resolve("\uFF20bob").empty());            // full-width at sign
  EXPECT_TRUE(team.resolve("@bob\u0301").empty());           // combining accent joins the token
}

// The ASCII lookup lower-cases and hashes eight bytes at a time: every length up to its 64
// bytes (and one past, through ICU), each capital at every place in a word.
TEST(ResolveMentionsTest, AsciiAliasesOfEveryLengthFoldCase) {
  for (std::size_t length = 1; length <= 65; ++length) {
    std::string id(length, 'q');
    for (std::size_t i = 0; i < length; ++i) id[i] = static_cast<char>('a' + (i * 7) % 26);
    const RosterSnapshot roster{.members = {{.id = id}, {.id = id + "x"}}};
    const DeskSnapshot desks;
    for (std::size_t capital = 0; capital < length; ++capital) {
      std::string written = id;
      written[capital] = static_cast<char>(written[capital] - 'a' + 'A');
      const auto found = resolve_mentions("@" + written, std::nullopt, OtherAuthor{},
                                          Roster(roster), DeskSet(desks));
      ASSERT_EQ(found.size(), 1U) << written;
      EXPECT_EQ(found[0].target, MentionTarget(AgentTarget{id})) << written;
    }
    const auto other = resolve_mentions("@" + id + "Y", std::nullopt, OtherAuthor{}, Roster(roster),
                                        DeskSet(desks));
    EXPECT_TRUE(other.empty()) << id;
  }
}

TEST(ResolveMentionsTest, UnicodeLowerCasingMayChangeLength) {
  const RosterSnapshot roster{
      .members = {{.id = "agent", .name = "\u0130"}, {.id = "sigma", .name = "\u039F\u03A3"}}};
  const DeskSnapshot desks;
  const auto found = resolve_mentions("\u00E9 @i\u0307 @\u03BF\u03C2", std::nullopt, OtherAuthor{},
                                      Roster(roster), DeskSet(desks));
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0], agent("agent", "@i\u0307", 3));
  EXPECT_EQ(found[1].target, MentionTarget{AgentTarget{"sigma"}});  // final sigma folds to ς
}

TEST(ResolveMentionsTest, DesksPeopleAndEveryone) {
  const Team team;
  const auto found = team.resolve("@eng @#Engineering @ada_lovelace @here @channel @everyone");
  ASSERT_EQ(found.size(), 6U);
  EXPECT_EQ(found[0].target, MentionTarget{DeskTarget{"eng"}});
  EXPECT_EQ(found[1].target, MentionTarget{DeskTarget{"eng"}});
  EXPECT_TRUE(found[1].quiet);  // repeat of the same desk
  EXPECT_EQ(found[2].target, MentionTarget{PersonTarget{"p1"}});
  EXPECT_EQ(found[3].target, MentionTarget{EveryoneTarget{}});
  EXPECT_TRUE(found[4].quiet);
  EXPECT_TRUE(found[5].quiet);
  EXPECT_TRUE(team.resolve("@Ada Lovelace").empty());  // multi-word labels are never aliases
  EXPECT_TRUE(team.resolve("@#alice").empty());        // hash mode looks at desks only
}

TEST(ResolveMentionsTest, AmbiguityFailsClosedAndTheDeskSigilDisambiguates) {
  const RosterSnapshot roster{.members = {{.id = "eng"}, {.id = "here"}}};
  const DeskSnapshot desks{.declared = {{.id = "eng", .name = "Engineering"}}};
  const auto resolve = [&](std::string_view body) {
    return resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  };
  EXPECT_TRUE(resolve("@eng").empty());
  EXPECT_TRUE(resolve("@here").empty());
  ASSERT_EQ(resolve("@#eng").size(), 1U);
  EXPECT_EQ(resolve("@#eng")[0].target, MentionTarget{DeskTarget{"eng"}});
}

TEST(ResolveMentionsTest, SlugsGetCollisionSuffixesInRosterOrder) {
  const RosterSnapshot roster{.people = {{.id = "p1", .label = "Ada"},
                                         {.id = "p2", .label = "Ada"},
                                         {.id = "p3", .label = "Ada 2"},
                                         {.id = "p4", .label = "  Chief--Researcher  "},
                                         {.id = "p5", .label = "\U0001F600 \u00C9lodie / Agent 7"},
                                         {.id = "p6", .label = "\u6771\u4EAC"}}};
  const DeskSnapshot desks;
  const auto target_of = [&](std::string_view body) -> std::optional<MentionTarget> {
    auto found =
        resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
    if (found.size() != 1) return std::nullopt;
    return found.front().target;
  };
  EXPECT_EQ(target_of("@ada"), std::nullopt);  // label "Ada" twice: ambiguous
  EXPECT_EQ(target_of("@ada_2"), MentionTarget{PersonTarget{"p2"}});
  EXPECT_EQ(target_of("@ada_2_2"), MentionTarget{PersonTarget{"p3"}});
  EXPECT_EQ(target_of("@chief_researcher"), MentionTarget{PersonTarget{"p4"}});
  EXPECT_EQ(target_of("@lodie_agent_7"), MentionTarget{PersonTarget{"p5"}});
  EXPECT_EQ(target_of("@\u6771\u4EAC"), MentionTarget{PersonTarget{"p6"}});  // the label itself
}

TEST(ResolveMentionsTest, RetiredAndTombstonedAgentsHaveNoAlias) {
  const RosterSnapshot roster{
      .members = {{.id = "alice"}, {.id = "bob", .name = "Bob"}, {.id = "old"}},
      .retired = {"old"},
      .tombstoned = {"bob"}};
  const DeskSnapshot desks;
  const auto found = resolve_mentions("@bob @Bob @old @alice", std::nullopt, OtherAuthor{},
                                      Roster(roster), DeskSet(desks));
  EXPECT_EQ(spans(found), (Spans{{"@alice", 15}}));
}

TEST(ResolveMentionsTest, CodeIsMasked) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("`@alice` @bob\n```rust\n@alice\n```\n@alice")),
            (Spans{{"@bob", 9}, {"@alice", 33}}));
  EXPECT_EQ(spans(team.resolve("    @alice in code\n\n@alice")), (Spans{{"@alice", 20}}));
  EXPECT_EQ(spans(team.resolve("text\n    @alice")), (Spans{{"@alice", 9}}));
  EXPECT_EQ(spans(team.resolve("\\` @alice \\`")), (Spans{{"@alice", 3}}));
  EXPECT_EQ(spans(team.resolve("```\r\n@alice\r\n```\r\n@bob")), (Spans{{"@bob", 18}}));
  EXPECT_EQ(spans(team.resolve("` text @alice")), (Spans{{"@alice", 7}}));
}

// The fast paths: a body without `@`, `@`s only in code, and masking block by block when
// the body has no fence (the blocks between blank lines), or all at once when it has one.
TEST(ResolveMentionsTest, BodiesWithoutAnOpenMentionAreCheap) {
  const Team team;
  EXPECT_TRUE(team.resolve("").empty());
  EXPECT_TRUE(team.resolve("no at sign here, `code` and\n\n    indented").empty());
  const RosterSnapshot invalid{.members = {{.id = "x"}, {.id = "x"}}};
  const DeskSnapshot desks;
  EXPECT_TRUE(
      resolve_mentions("plain", std::nullopt, OtherAuthor{}, Roster(invalid), DeskSet(desks))
          .empty());
  EXPECT_TRUE(
      resolve_mentions("@x", std::nullopt, OtherAuthor{}, Roster(invalid), DeskSet(desks)).empty());
  EXPECT_TRUE(team.resolve("`@alice` and ``@bob``\n\n    @alice\n").empty());
  EXPECT_TRUE(team.resolve("a `b\n@alice c` d").empty());  // a span across a line break
}

TEST(ResolveMentionsTest, MaskingBlockByBlockAgreesWithTheWholeBody) {
  const Team team;
  // No fence: spans close within their paragraph, indented lines after a blank line are code,
  // indented lines inside a paragraph are not.
  EXPECT_EQ(spans(team.resolve("`a\n\n@alice `\n\n    @bob\n\ntext\n    @bob")),
            (Spans{{"@alice", 4}, {"@bob", 33}}));
  EXPECT_EQ(spans(team.resolve("x\n  \t\n    @bob\n \r\n@alice")), (Spans{{"@alice", 18}}));
  EXPECT_EQ(spans(team.resolve("# `h\n@alice `\n@bob `x\n\n@alice")),
            (Spans{{"@alice", 5}, {"@alice", 23}}));
  // A fence anywhere: the blank line inside it does not end it.
  EXPECT_EQ(spans(team.resolve("~~~\n\n@alice\n~~~\n\n@bob")), (Spans{{"@bob", 17}}));
  EXPECT_EQ(spans(team.resolve("@alice\n\n```\n\n    @bob")), (Spans{{"@alice", 0}}));
}

TEST(ResolveMentionsTest, NonAsciiAliasesAreStillMatched) {
  const RosterSnapshot roster{.members = {{.id = "\u00C9lodie"}, {.id = "ana", .name = "\u00C1na"}},
                              .people = {{.id = "p", .label = "\u6771\u4EAC"}}};
  const DeskSnapshot desks{.declared = {{.id = "d", .name = "\u00DCberDesk"}}};
  const auto found = resolve_mentions("@\u00E9LODIE @\u00E1NA @\u6771\u4EAC @#\u00FCberdesk @#ana",
                                      std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  ASSERT_EQ(found.size(), 4U);
  EXPECT_EQ(found[0].target, MentionTarget{AgentTarget{"\u00C9lodie"}});
  EXPECT_EQ(found[1].target, MentionTarget{AgentTarget{"ana"}});
  EXPECT_EQ(found[2].target, MentionTarget{PersonTarget{"p"}});
  EXPECT_EQ(found[3].target, MentionTarget{DeskTarget{"d"}});
}

TEST(ResolveMentionsTest, OffsetsAreUtf8ByteOffsetsIntoTheBody) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("\u00E9\u00E9 (@ALICE)")), (Spans{{"@ALICE", 6}}));
}

TEST(ResolveMentionsTest, SelfMentionsAreDroppedAndRepeatsQuiet) {
  const Team team;
  const auto found = team.resolve("@alice @bob @Alice @bob", AgentAuthor{"alice"});
  EXPECT_EQ(found, (std::vector<Mention>{agent("bob", "@bob", 7), agent("bob", "@bob", 19, true)}));
  const auto by_person = team.resolve("@ada_lovelace @bob", PersonAuthor{"p1"});
  EXPECT_EQ(spans(by_person), (Spans{{"@bob", 14}}));
  // An agent id equal to a person id is not the same author.
  EXPECT_EQ(spans(team.resolve("@bob", PersonAuthor{"bob"})), (Spans{{"@bob", 0}}));
}

TEST(ResolveMentionsTest, AtMostFiftyPingingMentionsTheRestQuiet) {
  RosterSnapshot roster;
  std::string body;
  for (int i = 0; i < 60; ++i) {
    roster.members.push_back({.id = "a" + std::to_string(i)});
    body += "@a" + std::to_string(i) + " ";
  }
  const DeskSnapshot desks;
  const auto found =
      resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  ASSERT_EQ(found.size(), 60U);
  for (std::size_t i = 0; i < found.size(); ++i) EXPECT_EQ(found[i].quiet, i >= kMentionCap) << i;
}

TEST(ResolveMentionsTest, RepeatsAreQuietPastThePairwiseLimitToo) {
  // 40 targets named once, then two repeats: one of the first 32 (compared pairwise), one
  // of those past them (hashed), each on views and on a team.
  RosterSnapshot roster;
  std::string body;
  for (int i = 0; i < 40; ++i) {
    roster.members.push_back({.id = "a" + std::to_string(i)});
    body += "@a" + std::to_string(i) + " ";
  }
  body += "@A3 @a35 @a39x";
  const DeskSnapshot desks;
  const auto team = thm::Team::prepare(roster, desks);
  ASSERT_TRUE(team);
  for (const auto& found :
       {resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks)),
        resolve_mentions(body, std::nullopt, OtherAuthor{}, *team)}) {
    ASSERT_EQ(found.size(), 42U);
    for (std::size_t i = 0; i < found.size(); ++i) EXPECT_EQ(found[i].quiet, i >= 40) << i;
    EXPECT_EQ(found[40].target, MentionTarget{AgentTarget{"a3"}});
    EXPECT_EQ(found[41].target, MentionTarget{AgentTarget{"a35"}});
  }
}

TEST(ResolveMentionsTest, InvalidSnapshotsYieldNothing) {
  Team team;
  team.roster.members.push_back({.id = "bob"});
  EXPECT_TRUE(team.resolve("@alice").empty());
  Team desks_broken;
  desks_broken.desks.declared.push_back({.id = "main", .name = "x"});
  EXPECT_TRUE(desks_broken.resolve("@alice").empty());
}

TEST(ResolveMentionsTest, InvalidUtf8NeverCrashes) {
  const Team team;
  EXPECT_EQ(spans(team.resolve("\xff @bob \xc3 @\xc3\xa9 @a\xff")), (Spans{{"@bob", 2}}));
  EXPECT_TRUE(team.resolve("@\xe2\x80").empty());
}

TEST(ResolveMentionsTest, HostileBodiesAreHandledWhole) {
  // Every "@" opens and its token runs to the end of the body: a rescanning lexer would
  // take quadratic time here (benchmarks measure the scaling; this pins the answer).
  const Team team;
  std::string body;
  for (int i = 0; i < 50'000; ++i) body += "(@";
  EXPECT_TRUE(team.resolve(body).empty());
  // Spans pair up two by two: every other "@bob" is code.
  std::string ticks;
  for (int i = 0; i < 20'000; ++i) ticks += "` @bob ";
  const auto found = team.resolve(ticks);
  ASSERT_EQ(found.size(), 10'000U);
  EXPECT_EQ(found.front(), agent("bob", "@bob", 9));
  EXPECT_TRUE(found.back().quiet);
}

TEST(RevalidateMentionsTest, ManySuppliedMentionsOfALongTokenAreEachCheckedAlone) {
  // Each check reads only its own span: 2000 stale copies over a 200 kB token complete.
  const RosterSnapshot roster{.members = {{.id = "a"}}};
  const DeskSnapshot desks;
  const std::string body = "@a" + std::string(200'000, 'b');
  const std::vector<Mention> supplied(2000, agent("a", "@a", 0));
  EXPECT_TRUE(resolve_mentions(body, std::span<const Mention>(supplied), OtherAuthor{},
                               Roster(roster), DeskSet(desks))
                  .empty());
  const std::string ok = "@a b";
  EXPECT_EQ(resolve_mentions(ok, std::span<const Mention>(supplied), OtherAuthor{}, Roster(roster),
                             DeskSet(desks)),
            (std::vector<Mention>{agent("a", "@a", 0)}));
}

TEST(ResolveMentionsTest, ManyPeopleWithOneLabelGetDistinctSlugs) {
  RosterSnapshot roster;
  for (int i = 0; i < 3000; ++i)
    roster.people.push_back({.id = "p" + std::to_string(i), .label = "Ada"});
  const DeskSnapshot desks;
  const auto found =
      resolve_mentions("@ada_3000", std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].target, MentionTarget{PersonTarget{"p2999"}});
}

TEST(RevalidateMentionsTest, AnEmptySuppliedListSuppressesExtraction) {
  const Team team;
  EXPECT_TRUE(team.revalidate("@alice", {}).empty());
}

TEST(RevalidateMentionsTest, SpansThatAreNotExactTokensAreDropped) {
  const Team team;
  const std::string body = "hi @bob, x@alice `@alice` \u00E9";
  for (const Mention& bad :
       {agent("bob", "@bo", 3), agent("bob", "@bob,", 3), agent("bob", "@bob", 4),
        agent("alice", "@alice", 10), agent("alice", "@alice", 18), agent("bob", "\xA9", 27),
        agent("bob", "@bob", 1000),
        agent("bob", "@bob", std::numeric_limits<std::size_t>::max())}) {
    EXPECT_TRUE(team.revalidate(body, {bad}).empty()) << bad.text << " at " << bad.offset;
  }
  EXPECT_EQ(team.revalidate(body, {agent("bob", "@bob", 3)}),
            (std::vector<Mention>{agent("bob", "@bob", 3)}));
}

TEST(RevalidateMentionsTest, StaleOrWrongTargetsAreKeptQuiet) {
  Team team;
  team.roster.retired = {"bob"};
  const auto found = team.revalidate(
      "@bob @alice @#eng @eng", {agent("bob", "@bob", 0),
                                 agent("ghost", "@alice", 5),
                                 {.target = DeskTarget{"eng"}, .text = "@#eng", .offset = 12},
                                 {.target = AgentTarget{"alice"}, .text = "@eng", .offset = 18}});
  ASSERT_EQ(found.size(), 4U);
  EXPECT_TRUE(found[0].quiet);   // retired: no alias any more
  EXPECT_TRUE(found[1].quiet);   // the token names someone else
  EXPECT_FALSE(found[2].quiet);  // still the desk
  EXPECT_TRUE(found[3].quiet);   // names the desk, not alice
}

TEST(RevalidateMentionsTest, SuppliedQuietStaysQuietAndIsStillNormalized) {
  const Team team;
  const auto found =
      team.revalidate("@bob @bob", {agent("bob", "@bob", 5), agent("bob", "@bob", 0, true)});
  EXPECT_EQ(found,
            (std::vector<Mention>{agent("bob", "@bob", 0, true), agent("bob", "@bob", 5, true)}));
}

TEST(DirectResponderTest, FirstNonQuietActiveAgentInReadingOrder) {
  const RosterSnapshot roster{.members = {{.id = "alice"}, {.id = "bob"}}, .retired = {"alice"}};
  const std::vector<Mention> mentions{
      {.target = EveryoneTarget{}, .text = "@everyone", .offset = 0},
      agent("bob", "@bob", 30),
      agent("alice", "@alice", 10),
      agent("bob", "@bob", 17, true),
      agent("bob", "@bob", 22),
  };
  EXPECT_EQ(direct_responder(mentions, Roster(roster)), std::optional<std::string>("bob"));
  EXPECT_EQ(direct_responder({}, Roster(roster)), std::nullopt);
  const RosterSnapshot broken{.members = {{.id = ""}}};
  EXPECT_EQ(direct_responder(mentions, Roster(broken)), std::nullopt);
}

TEST(MentionedMembersTest, RepeatsAreExpandedOnceWhateverTheirNumber) {
  RosterSnapshot roster;
  for (int i = 0; i < 300; ++i) roster.members.push_back({.id = "a" + std::to_string(i)});
  for (int i = 0; i < 150; ++i) roster.retired.push_back("a" + std::to_string(2 * i));
  const DeskSnapshot desks{
      .declared = {{.id = "eng", .name = "Engineering", .members = {"a1", "a3"}}}};
  std::vector<Mention> mentions;
  for (std::size_t i = 0; i < 50'000; ++i) {
    mentions.push_back(
        {.target = i % 2 == 0 ? MentionTarget{EveryoneTarget{}} : MentionTarget{DeskTarget{"eng"}},
         .text = "@x",
         .offset = i});
  }
  const auto members =
      mentioned_members(mentions, std::nullopt, "a1", Roster(roster), DeskSet(desks));
  ASSERT_EQ(members.size(), 149U);
  EXPECT_EQ(members.front(), "a3");
}

TEST(MentionedMembersTest, ExpandsDesksAndEveryoneDedupesAndExcludesTheResponder) {
  const RosterSnapshot roster{
      .members = {{.id = "alice"}, {.id = "bob"}, {.id = "cara"}, {.id = "dave"}},
      .retired = {"dave"}};
  const DeskSnapshot desks{
      .declared = {{.id = "eng", .name = "Engineering", .members = {"alice", "bob", "dave"}}}};
  const std::vector<Mention> mentions{
      {.target = PersonTarget{"p"}, .text = "@p", .offset = 30},
      {.target = EveryoneTarget{}, .text = "@everyone", .offset = 12},
      {.target = DeskTarget{"eng"}, .text = "@#eng", .offset = 6},
      agent("cara", "@cara", 0),
  };
  EXPECT_EQ(mentioned_members(mentions, "eng", "alice", Roster(roster), DeskSet(desks)),
            (std::vector<std::string>{"cara", "bob"}));
  const std::vector<Mention> everyone{{.target = EveryoneTarget{}, .text = "@here", .offset = 0}};
  EXPECT_EQ(mentioned_members(everyone, std::nullopt, std::nullopt, Roster(roster), DeskSet(desks)),
            (std::vector<std::string>{"alice", "bob", "cara"}));
  EXPECT_EQ(mentioned_members(everyone, "MAIN", "bob", Roster(roster), DeskSet(desks)),
            (std::vector<std::string>{"alice", "cara"}));
  EXPECT_TRUE(
      mentioned_members(everyone, "missing", std::nullopt, Roster(roster), DeskSet(desks)).empty());
}

}  // namespace
}  // namespace thm
