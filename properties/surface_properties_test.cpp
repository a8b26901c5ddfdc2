// Properties of what hosts see: selection normalization (SPEC §2.5, §2.6), resolved
// mentions (§1.5) and the wire forms (§6).
#include <nlohmann/json.hpp>

#include "generators.hpp"
#include "thm/json/json.hpp"
#include "thm/mentions/body_scan.hpp"
#include "thm/mentions/code_mask.hpp"

namespace thm::properties {
namespace {

// ---- selection ------------------------------------------------------------------------------

// Candidates with distinct ids that are ASCII words, so the plain id is accepted.
std::vector<SelectorCandidate> word_candidates() {
  std::vector<std::string> ids =
      shuffled(std::vector<std::string>{"alice", "bob", "Coder", "agent_a", "x1", "build-linux"});
  ids.resize(static_cast<std::size_t>(*rc::gen::inRange(0, 7)));
  std::vector<SelectorCandidate> candidates;
  for (const std::string& id : ids) candidates.push_back({.id = id, .label = id, .role = "r"});
  return candidates;
}

RC_GTEST_PROP(Selection, OneWrapperOnePeriodAndWhitespaceKeepAnAnswer, ()) {
  const auto candidates = word_candidates();
  RC_PRE(!candidates.empty());
  const std::string id = (*rc::gen::elementOf(candidates)).id;
  RC_ASSERT(accept_selection(id, candidates) == std::optional<std::string>(id));
  const std::string wrap = *rc::gen::elementOf(std::vector<std::string>{"", "'", "\"", "`"});
  const std::string space =
      *rc::gen::elementOf(std::vector<std::string>{"", " ", "\t\n", "\u00A0"});
  const std::string period = *rc::gen::elementOf(std::vector<std::string>{"", ".", " ."});
  const std::string output = space + wrap + space + id + space + wrap + period + space;
  RC_ASSERT(accept_selection(output, candidates) == std::optional<std::string>(id));
}

RC_GTEST_PROP(Selection, AnythingMoreIsRejected, ()) {
  const auto candidates = word_candidates();
  RC_PRE(!candidates.empty());
  const std::string id = (*rc::gen::elementOf(candidates)).id;
  const std::string output = *rc::gen::elementOf(std::vector<std::string>{
      id + "..", "''" + id + "''", "'" + id + ".'", id + " because", "**" + id + "**", id + "!",
      "'" + id + "\"", id + " " + id, "[" + id + "]"});
  RC_ASSERT(accept_selection(output, candidates) == std::nullopt);
}

RC_GTEST_PROP(Selection, AnOutputMatchingTwoCandidatesIsRejected, ()) {
  const std::string id = *rc::gen::elementOf(std::vector<std::string>{"assistant", "coder", "bob"});
  std::string twin = id;
  twin[0] = static_cast<char>(twin[0] - 'a' + 'A');
  const std::vector<SelectorCandidate> candidates{{.id = id}, {.id = twin}};
  RC_ASSERT(accept_selection(*gen_selector_output(candidates), candidates) == std::nullopt);
}

// SPEC §2.5: only ASCII letters fold; any other letter must match exactly.
RC_GTEST_PROP(Selection, CaseFoldingIsAsciiOnly, ()) {
  const auto& [id, other_case] = *rc::gen::elementOf(
      std::vector<std::pair<std::string, std::string>>{{"\u00E9lodie", "\u00C9lodie"},
                                                       {"i\u0307", "\u0130"},
                                                       {"stra\u00DFe", "STRASSE"},
                                                       {"\u03C3ofia", "\u03A3ofia"},
                                                       {"\u00E5sa", "\u00C5SA"}});
  const std::vector<SelectorCandidate> candidates{{.id = id}, {.id = "bob"}};
  RC_ASSERT(accept_selection(id, candidates) == std::optional<std::string>(id));
  RC_ASSERT(accept_selection(other_case, candidates) == std::nullopt);
}

// SPEC §2.6: a choice may tie with the most probable entries.
RC_GTEST_PROP(Selection, AChoiceThatTiesTheMostProbableIsAccepted, ()) {
  // 2, 4 or 5 candidates share the whole scale exactly; one more may get nothing.
  const std::size_t tied = *rc::gen::element<std::size_t>(2, 4, 5);
  std::vector<std::string> ids =
      shuffled(std::vector<std::string>{"alice", "bob", "Coder", "agent_a", "x1", "build-linux"});
  ids.resize(tied + static_cast<std::size_t>(*rc::gen::inRange(0, 2)));
  std::vector<SelectorCandidate> candidates;
  for (const std::string& id : ids) candidates.push_back({.id = id});
  const auto share = static_cast<std::uint32_t>(kProbabilityScale / tied);
  SelectionEvaluation e{.choice = ids[*rc::gen::inRange<std::size_t>(0, tied)],
                        .confidence = {kProbabilityScale}};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    e.probabilities.push_back({.candidate_id = ids[i], .probability = {i < tied ? share : 0}});
  }
  RC_ASSERT(accept_evaluation(e, candidates, {0}) == std::optional<std::string>(e.choice));
}

RC_GTEST_PROP(Selection, EvaluationsNotSummingToTheScaleAreRejected, ()) {
  const auto candidates = word_candidates();
  RC_PRE(!candidates.empty());
  SelectionEvaluation e = *gen_evaluation(candidates);
  std::uint64_t sum = 0;
  for (const auto& p : e.probabilities) sum += p.probability.parts_per_million;
  if (sum != kProbabilityScale) RC_ASSERT(accept_evaluation(e, candidates, {0}) == std::nullopt);
}

// ---- mentions -------------------------------------------------------------------------------

RC_GTEST_PROP(Mentions, ResolvedMentionsAreTheBodysOwnUnmaskedTokens, ()) {
  const RosterSnapshot roster = *gen_roster();
  const DeskSnapshot desks = *gen_desks(member_ids(roster));
  const std::string body = *gen_body();
  const auto mentions =
      resolve_mentions(body, std::nullopt, *gen_author(), Roster(roster), DeskSet(desks));
  const auto code = detail::code_ranges(body);
  std::size_t pinging = 0;
  for (std::size_t i = 0; i < mentions.size(); ++i) {
    const Mention& m = mentions[i];
    RC_ASSERT(body.compare(m.offset, m.text.size(), m.text) == 0);
    RC_ASSERT(m.offset + m.text.size() <= body.size());
    RC_ASSERT((static_cast<unsigned char>(body[m.offset]) & 0xC0) != 0x80);
    if (i > 0) RC_ASSERT(mentions[i - 1].offset < m.offset);
    for (const detail::ByteRange& range : code)
      RC_ASSERT(m.offset < range.begin || m.offset >= range.end);
    if (!m.quiet) ++pinging;
  }
  RC_ASSERT(pinging <= kMentionCap);
  RC_ASSERT(resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks)) ==
            resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks)));
}

// SPEC §1.5 opener: a mention starts only at byte 0 or after ASCII whitespace (not vertical
// tab) or one of ( [ {.
RC_GTEST_PROP(Mentions, OnlyTheOpenerBytesOpen, ()) {
  const RosterSnapshot roster{.members = {{.id = "bob"}}};
  const DeskSnapshot desks;
  const char before = *rc::gen::elementOf(std::string(" \t\n\f\r([{\v;,.-x1@)]}`'\"\\/#_"));
  const std::string body = std::string("a") + before + "@bob";
  const bool opens = std::string(" \t\n\f\r([{").find(before) != std::string::npos;
  const auto found =
      resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  RC_ASSERT(found.size() == (opens ? 1U : 0U));
}

// SPEC §1.5 fences: a closer needs the same marker and a run at least as long as the opener.
RC_GTEST_PROP(Mentions, AFenceClosesOnlyWithALongEnoughRunOfItsMarker, ()) {
  const RosterSnapshot roster{.members = {{.id = "bob"}}};
  const DeskSnapshot desks;
  const char marker = *rc::gen::element('`', '~');
  const char closer_marker =
      *rc::gen::weightedElement<char>({{4, marker}, {1, marker == '`' ? '~' : '`'}});
  const auto open_run = *rc::gen::inRange<std::size_t>(3, 7);
  const auto close_run = *rc::gen::inRange<std::size_t>(3, 8);
  const std::string indent(*rc::gen::inRange<std::size_t>(0, 4), ' ');
  const std::string tail = *rc::gen::element<std::string>("", " ", "\t ");
  const std::string body = std::string(open_run, marker) + "\n@bob\n" + indent +
                           std::string(close_run, closer_marker) + tail + "\n@bob";
  const bool closes = closer_marker == marker && close_run >= open_run;
  const auto found =
      resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  RC_ASSERT(found.size() == (closes ? 1U : 0U));
}

// BodyScan (what resolve_mentions asks) finds every `@` in order and answers for each as a
// lookup in code_ranges, whichever kernel classifies the bytes: the block window of a body
// without a fence before it, the look behind an `@` and the stretches the pass skips.
RC_GTEST_PROP(Mentions, TheScanAnswersAsTheCodeRanges, ()) {
  const std::string body = *rc::gen::weightedOneOf<std::string>(
      {{1, gen_body()}, {3, gen_block_body()}, {2, gen_spread_body()}});
  const auto code = detail::code_ranges(body);
  const auto in_code = [&](std::size_t offset) {
    return std::ranges::any_of(
        code, [&](const detail::ByteRange& r) { return r.begin <= offset && offset < r.end; });
  };
  for (const bool portable : {false, true}) {
    std::optional<detail::PortableScan> forced;
    if (portable) forced.emplace();
    detail::BodyScan scan(body);
    std::size_t from = 0;
    for (std::size_t at = scan.next_at(); at != std::string_view::npos; at = scan.next_at()) {
      RC_ASSERT(body.find('@', from) == at);
      from = at + 1;
      if (one_in(4)) continue;  // not every `@` is asked about
      RC_ASSERT(scan.in_code(at) == in_code(at));
    }
    RC_ASSERT(body.find('@', from) == std::string::npos);
  }
  RC_TAG(body.size() > 256 ? "longer than 256 bytes" : "short");
}

// ---- wire forms -----------------------------------------------------------------------------

template <json::WireType T>
void expect_round_trip(const T& value) {
  const auto decoded = json::decode<T>(json::encode(value));
  RC_ASSERT(decoded.has_value());
  RC_ASSERT(*decoded == value);
}

// Removing any one required key from a valid document makes decoding fail.
template <json::WireType T>
void expect_required_keys(const T& value, const std::vector<std::string>& required) {
  const json::Value tree = json::to_value(value);
  for (const std::string& key : required) {
    json::Value broken = tree;
    broken.erase(key);
    RC_ASSERT(!json::from_value<T>(broken).has_value());
  }
}

RC_GTEST_PROP(Wire, EveryPayloadRoundTrips, ()) {
  const RosterSnapshot roster = *gen_roster();
  expect_round_trip(roster);
  expect_round_trip(*gen_desks());
  for (const Mention& m : *gen_mentions()) expect_round_trip(m);
  expect_round_trip(*gen_author());
  expect_round_trip(*gen_policy());
  const MentionDispatchInput input = *gen_dispatch_input();
  expect_round_trip(input);
  const auto decision = mention_dispatch(*gen_policy(), input, Roster(roster));
  if (decision) expect_round_trip(*decision);
  const auto candidates = *gen_candidates();
  for (const SelectorCandidate& c : candidates) expect_round_trip(c);
  // Probabilities over the scale have no wire form (the decoder refuses them, SPEC §2.6).
  const SelectionEvaluation evaluation = *gen_evaluation(candidates);
  const bool valid =
      evaluation.confidence.valid() &&
      std::ranges::all_of(evaluation.probabilities,
                          [](const CandidateProbability& p) { return p.probability.valid(); });
  if (valid) {
    expect_round_trip(evaluation);
  } else {
    RC_ASSERT(!json::decode<SelectionEvaluation>(json::encode(evaluation)).has_value());
  }
  const ResponderRequest request{.message = *gen_body(),
                                 .chat = *gen_chat(),
                                 .mentions = *gen_mentions(),
                                 .orchestrator_id = *gen_id()};
  expect_round_trip(request);
  const DeskSnapshot desks = *gen_desks();
  const auto plan = responder_plan(request, Roster(roster), DeskSet(desks), candidates);
  if (plan) expect_round_trip(*plan);
  expect_round_trip(MentionDispatchContext{.policy = *gen_policy(), .hop = *gen_hop_count()});
  expect_round_trip(MentionDispatchOutcome{NotDispatched{*rc::gen::elementOf(
      std::vector<NoDispatchReason>(kAllNoDispatchReasons.begin(), kAllNoDispatchReasons.end()))}});
}

RC_GTEST_PROP(Wire, EveryRequiredKeyIsRequired, ()) {
  expect_required_keys(*gen_policy(), {"enabled", "max_hops"});
  expect_required_keys(*gen_dispatch_input(),
                       {"key", "conversation", "author_id", "content", "mentions", "hop"});
  expect_required_keys(MentionDispatchContext{.policy = *gen_policy()}, {"policy", "hop"});
  expect_required_keys(DispatchConversation{.desk_id = *gen_id()}, {"desk_id", "thread_root"});
  for (const Mention& m : *gen_mentions()) expect_required_keys(m, {"target", "text", "offset"});
  expect_required_keys(*gen_roster(), {"members", "people", "retired", "tombstoned"});
  expect_required_keys(
      *gen_desks(), {"declared", "added", "member_additions", "orders", "retired", "tombstoned"});
  expect_required_keys(RosterMember{.id = *gen_id()}, {"id", "name"});
  expect_required_keys(SelectorCandidate{.id = *gen_id()}, {"id", "label", "role", "description"});
  expect_required_keys(ResponderRequest{},
                       {"message", "chat", "mentions", "orchestrator_id", "selection_policy"});
  expect_required_keys(Desk{.id = "d", .name = "D"}, {"id", "name", "description", "members"});
  expect_required_keys(TeamBriefing{}, {"viewer_id", "desk_id", "desk_name", "teammates"});
}

}  // namespace
}  // namespace thm::properties
