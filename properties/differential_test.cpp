// Differential properties: for every operation of cases.md, the core and the reference
// model agree on random inputs (decisions, errors, wire forms).
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "generators.hpp"
#include "thm/bridge/bridge.hpp"
#include "thm/json/json.hpp"
#include "thm/mentions/body_scan.hpp"
#include "thm/mentions/code_mask.hpp"

namespace thm::properties {
namespace {

using bridge::to_core;
using bridge::to_model;

// The team prepared from the snapshots, or nothing when they are malformed (adr/0016). Each
// property below also runs the team's overload wherever a team holds its snapshots, and
// asserts the same answer as on the views (which the model agrees with).
std::optional<Team> prepared(const RosterSnapshot& roster, const DeskSnapshot& desks = {}) {
  auto team = Team::prepare(roster, desks);
  RC_TAG(team ? "prepared" : "no team");
  if (!team) return std::nullopt;
  return *std::move(team);
}

// Core and model planned the same, or refused with the same error; tags the outcome.
void expect_same_plan(const Result<ResponderPlan, ResponderError>& core,
                      const model::Answer<model::Plan>& model) {
  RC_TAG(!core ? std::string(name(core.error()))
         : std::holds_alternative<Select>(*core)
             ? std::string("select")
             : std::string(name(std::get<Decided>(*core).decision.rung)));
  RC_ASSERT(core.has_value() == model.value.has_value());
  if (core) {
    RC_ASSERT(*core == to_core(*model.value));
  } else {
    RC_ASSERT(bridge::to_model_error(core.error()) == *model.error);
  }
}

RC_GTEST_PROP(Differential, ChatIdentityAgrees, ()) {
  const auto a = *gen_chat();
  const auto b = *gen_chat();
  RC_ASSERT(is_general_chat(a) == model::is_general_chat(a));
  RC_ASSERT(same_conversation(a, b) == model::same_conversation(a, b));
  const Conversation conversation{
      .desk_id = a.value_or(""),
      .desk_name = b.value_or("x"),
      .thread_root = *gen_optional(rc::gen::arbitrary<std::uint64_t>())};
  RC_ASSERT(DispatchConversation::from(conversation) ==
            to_core(model::dispatch_conversation(to_model(conversation))));
}

RC_GTEST_PROP(Differential, RosterValidationAgrees, ()) {
  const RosterSnapshot roster = *gen_roster();
  const auto core = Roster(roster).validate();
  const auto model = model::validate_roster(to_model(roster));
  RC_ASSERT(core.has_value() == model.has_value());
  if (core) RC_ASSERT(bridge::to_model_error(*core) == *model);
}

RC_GTEST_PROP(Differential, DeskRulesAgree, ()) {
  const DeskSnapshot desks = *gen_desks();
  const auto core = DeskSet(desks).validate();
  const auto model = model::validate_desks(to_model(desks));
  RC_ASSERT(core.has_value() == model.has_value());
  if (core) RC_ASSERT(bridge::to_model_error(*core) == *model);
  const std::string identity = *rc::gen::elementOf(std::vector<std::string>{
      "eng", "Engineering", "Shared", "ops", "Operations", "General", "missing", "bob", "Bobs"});
  const auto core_members = DeskSet(desks).members(identity);
  const auto model_members = model::desk_members(to_model(desks), identity);
  RC_ASSERT(core_members.has_value() == model_members.value.has_value());
  if (core_members) {
    RC_ASSERT(*core_members == *model_members.value);
  } else {
    RC_ASSERT(bridge::to_model_error(core_members.error()) == *model_members.error);
  }
}

// Preparing reports exactly the views' first error (roster first), and a prepared team
// looks up members, names, people and desks as the views do.
// A team prepared from `roster` and `desks` answers every lookup as the views do, or fails
// with the views' first error.
void expect_team_agrees(const RosterSnapshot& roster, const DeskSnapshot& desks) {
  const auto team = Team::prepare(roster, desks);
  const auto roster_error = Roster(roster).validate();
  const auto desk_error = DeskSet(desks).validate();
  if (roster_error) {
    RC_ASSERT(!team && team.error() == TeamError{*roster_error});
    return;
  }
  if (desk_error) {
    RC_ASSERT(!team && team.error() == TeamError{*desk_error});
    return;
  }
  RC_ASSERT(team.has_value());
  const Roster view(roster);
  const DeskSet desk_view(desks);
  std::vector<std::string> probes = member_ids(roster);
  for (const RosterMember& member : roster.members) {
    if (member.name) probes.push_back(*member.name);
  }
  for (const Person& someone : roster.people) probes.push_back(someone.id);
  for (const Desk* desk : desk_view.desks()) {
    probes.push_back(desk->id);
    probes.push_back(desk->name);
  }
  for (const std::string& extra : *gen_ids(3)) probes.push_back(extra);
  for (const std::string& probe : probes) {
    RC_ASSERT(team->is_active(probe) == view.is_active(probe));
    const Person* person = team->person(probe);
    const bool same_person =
        person == nullptr ? view.person(probe) == nullptr
                          : view.person(probe) != nullptr && person->id == view.person(probe)->id;
    RC_ASSERT(same_person);
    RC_ASSERT((team->desk(probe) == nullptr) == (desk_view.desk(probe) == nullptr));
    const auto found = team->find_desk(probe);
    const auto members = desk_view.members(probe);
    RC_ASSERT((found.desk != nullptr) == members.has_value());
    if (found.desk != nullptr) {
      const auto prepared_members = team->effective_members(*found.desk);
      RC_ASSERT(std::vector<std::string>(prepared_members.begin(), prepared_members.end()) ==
                *members);
    } else {
      RC_ASSERT(found.ambiguous == std::holds_alternative<AmbiguousDesk>(members.error()));
    }
  }
  std::vector<std::string> active;
  for (const RosterMember* member : team->active_members()) active.push_back(member->id);
  std::vector<std::string> expected;
  for (const RosterMember* member : view.active_members()) expected.push_back(member->id);
  RC_ASSERT(active == expected);
}

RC_GTEST_PROP(Differential, PreparedTeamsAgreeWithTheViews, ()) {
  const RosterSnapshot roster = *gen_roster();
  expect_team_agrees(roster, *gen_desks(member_ids(roster)));
}

// resolve_mentions by the fastest scan kernel this CPU runs, asserted to equal the same call
// by the portable kernel (SPEC §1.5 scanning has one answer, however bytes are classified).
std::vector<Mention> resolve_by_both_kernels(const std::string& body, const MentionAuthor& author,
                                             const RosterSnapshot& roster,
                                             const DeskSnapshot& desks) {
  auto found = resolve_mentions(body, std::nullopt, author, Roster(roster), DeskSet(desks));
  const detail::PortableScan portable;
  RC_ASSERT(resolve_mentions(body, std::nullopt, author, Roster(roster), DeskSet(desks)) == found);
  return found;
}

RC_GTEST_PROP(Differential, ResolveMentionsAgrees, ()) {
  const RosterSnapshot roster = *gen_roster();
  const DeskSnapshot desks = *gen_desks(member_ids(roster));
  const std::string body = *gen_body();
  const MentionAuthor author = *gen_author();
  const auto core = resolve_by_both_kernels(body, author, roster, desks);
  const auto model = model::resolve_mentions(body, std::nullopt, to_model(author), to_model(roster),
                                             to_model(desks));
  RC_TAG(core.empty() ? "no mention" : "mentions");
  RC_ASSERT(core == to_core(model));
  const auto team = prepared(roster, desks);
  if (team) RC_ASSERT(resolve_mentions(body, std::nullopt, author, *team) == core);

  // Revalidation: supply what was found, shuffled and mutated, plus random mentions.
  std::vector<Mention> supplied = core;
  for (Mention& m : supplied) {
    if (*rc::gen::inRange(0, 4) == 0) m.target = *gen_target();
    if (*rc::gen::inRange(0, 6) == 0) m.offset += static_cast<std::size_t>(*rc::gen::inRange(0, 3));
    if (*rc::gen::inRange(0, 6) == 0) m.quiet = !m.quiet;
  }
  for (const Mention& m : *gen_mentions()) supplied.push_back(m);
  supplied = shuffled(supplied);
  const auto core_again = resolve_mentions(body, std::span<const Mention>(supplied), author,
                                           Roster(roster), DeskSet(desks));
  const auto model_again = model::resolve_mentions(body, to_model(supplied), to_model(author),
                                                   to_model(roster), to_model(desks));
  RC_ASSERT(core_again == to_core(model_again));
  if (team) {
    RC_ASSERT(resolve_mentions(body, std::span<const Mention>(supplied), author, *team) ==
              core_again);
  }
}

// The core's code ranges as a byte mask, to compare with the model's.
std::vector<bool> core_code_mask(const std::string& body) {
  std::vector<bool> mask(body.size(), false);
  for (const detail::ByteRange& range : detail::code_ranges(body)) {
    for (std::size_t i = range.begin; i < range.end; ++i) mask[i] = true;
  }
  return mask;
}

RC_GTEST_PROP(Differential, CodeMaskAgrees, ()) {
  const std::string body = *gen_body();
  RC_ASSERT(core_code_mask(body) == model::code_mask(body));
}

// A paragraph of 10 to 40 backtick runs of one to three among words: its closers found by
// a search in order (up to 16 runs) and by the index by length (past 16) agree with the model.
RC_GTEST_PROP(Differential, CodeSpansAgreeAroundSixteenRuns, ()) {
  const int runs = uniform(10, 41);
  std::string body;
  for (int i = 0; i < runs; ++i) {
    body += std::string(static_cast<std::size_t>(uniform(1, 4)), '`');
    body += *rc::gen::element<std::string>("a", " b ", "\\", " @bob ", "\n");
  }
  RC_TAG(runs > 16 ? "past 16 runs" : "16 or fewer");
  RC_ASSERT(core_code_mask(body) == model::code_mask(body));
}

// SPEC §1.5 block rules beside open spans: bodies of paragraph lines with unmatched backticks
// and lines of every block class at its edges (gen_block_body), LF and CRLF.
RC_GTEST_PROP(Differential, CodeMaskAgreesOnEveryLineClass, ()) {
  const std::string body = *gen_block_body();
  const std::vector<bool> model = model::code_mask(body);
  RC_TAG(std::ranges::find(model, true) == model.end() ? "no code" : "code");
  RC_ASSERT(core_code_mask(body) == model);
}

// The same bodies, and the same spread over plain text, through resolve_mentions, whose
// mask (BodyScan) reads what lies behind each `@` and classifies a block only when it may
// hold code: the mentions that stay live agree, with either scan kernel.
RC_GTEST_PROP(Differential, ResolveMentionsAgreesOnEveryLineClass, ()) {
  const RosterSnapshot roster{.members = {{.id = "bob"}, {.id = "alice"}}};
  const DeskSnapshot desks{.declared = {{.id = "eng", .name = "Engineering", .members = {"bob"}}}};
  const std::string body =
      *rc::gen::weightedOneOf<std::string>({{2, gen_block_body()}, {1, gen_spread_body()}});
  const auto core = resolve_by_both_kernels(body, OtherAuthor{}, roster, desks);
  const auto model =
      model::resolve_mentions(body, std::nullopt, to_model(MentionAuthor{OtherAuthor{}}),
                              to_model(roster), to_model(desks));
  RC_TAG(core.empty() ? "no mention" : "mentions");
  RC_ASSERT(core == to_core(model));
}

// A message of the realistic corpus (model/corpus/messages.json): its body, author and agents.
struct CorpusMessage {
  std::string body;
  std::string author;
  std::vector<std::string> agents;
};

const std::vector<CorpusMessage>& corpus_messages() {
  static const std::vector<CorpusMessage> messages = [] {
    std::ifstream file(THM_CORPUS_FILE, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    std::vector<CorpusMessage> read;
    const auto tree = json::parse(text.str());
    if (!tree) return read;
    for (const auto& message : *tree) {
      read.push_back({.body = message["body"].get<std::string>(),
                      .author = message["author"].get<std::string>(),
                      .agents = message["agents"].get<std::vector<std::string>>()});
    }
    return read;
  }();
  return messages;
}

// Realistic messages with block lines (gen_block_line: lists, headings, breaks, underlines,
// fences, indented and blank lines) spliced in between their lines, some lines gaining a
// lone backtick (a span left open across what follows), sometimes with CRLF line ends: core
// and model mask and resolve alike.
RC_GTEST_PROP(Differential, CorpusMessagesWithBlockLinesAgree, ()) {
  const auto& messages = corpus_messages();
  RC_ASSERT(messages.size() >= 100U);
  const CorpusMessage& message = *rc::gen::elementOf(messages);
  std::vector<std::string> lines;
  for (std::size_t begin = 0; begin <= message.body.size();) {
    const std::size_t end = std::min(message.body.find('\n', begin), message.body.size());
    lines.push_back(message.body.substr(begin, end - begin));
    begin = end + 1;
  }
  const int edits = uniform(1, 5);
  for (int i = 0; i < edits; ++i) {
    const auto at = static_cast<std::size_t>(uniform(0, static_cast<int>(lines.size())));
    switch (uniform(0, 4)) {
      case 0:
        lines[at] += *rc::gen::element<std::string>("`", " `", "``");
        break;
      case 1:
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at),
                     *rc::gen::element<std::string>("`", "see `", "- `a", "@agent_1 `"));
        break;
      default:
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), *gen_block_line());
        break;
    }
  }
  const std::string newline = one_in(3) ? "\r\n" : "\n";
  std::string body;
  for (std::size_t i = 0; i < lines.size(); ++i) body += (i == 0 ? "" : newline) + lines[i];
  RC_ASSERT(core_code_mask(body) == model::code_mask(body));

  RosterSnapshot roster;
  for (const std::string& agent : message.agents) roster.members.push_back({.id = agent});
  const DeskSnapshot desks{
      .declared = {{.id = "eng", .name = "Engineering", .members = {message.author}}}};
  const MentionAuthor author = AgentAuthor{message.author};
  const auto core = resolve_by_both_kernels(body, author, roster, desks);
  const auto model = model::resolve_mentions(body, std::nullopt, to_model(author), to_model(roster),
                                             to_model(desks));
  RC_TAG(core.empty() ? "no mention" : "mentions");
  RC_ASSERT(core == to_core(model));
  if (const auto team = prepared(roster, desks)) {
    RC_ASSERT(resolve_mentions(body, std::nullopt, author, *team) == core);
  }
}

RC_GTEST_PROP(Differential, ConsumersAgree, ()) {
  const RosterSnapshot roster = *gen_roster();
  const DeskSnapshot desks = *gen_desks(member_ids(roster));
  const std::vector<Mention> mentions = *gen_mentions();
  RC_ASSERT(direct_responder(mentions, Roster(roster)) ==
            model::direct_responder(to_model(mentions), to_model(roster)));
  const auto addressed = *gen_chat();
  const auto responder = *gen_optional(gen_id());
  RC_ASSERT(mentioned_members(mentions, addressed, responder, Roster(roster), DeskSet(desks)) ==
            model::mentioned_members(to_model(mentions), addressed, responder, to_model(roster),
                                     to_model(desks)));
  if (const auto team = prepared(roster, desks)) {
    RC_ASSERT(direct_responder(mentions, *team) == direct_responder(mentions, Roster(roster)));
    RC_ASSERT(mentioned_members(mentions, addressed, responder, *team) ==
              mentioned_members(mentions, addressed, responder, Roster(roster), DeskSet(desks)));
  }
}

RC_GTEST_PROP(Differential, ResponderPlanAgrees, ()) {
  const RosterSnapshot roster = *gen_roster();
  const DeskSnapshot desks = *gen_desks(member_ids(roster));
  const ResponderRequest request{
      .message = "m",
      .chat = *gen_chat(),
      .mentions = *gen_mentions(),
      .orchestrator_id =
          *rc::gen::weightedElement<std::string>({{6, "orch"}, {1, "alice"}, {1, "ghost"}}),
      .selection_policy = *rc::gen::element(SelectionPolicy::Allowed, SelectionPolicy::Disabled),
      // A thread responder a third of the time: a member (active or not) or a stranger.
      .thread_responder = one_in(5) ? std::optional(*rc::gen::elementOf(
                                          roster.members.empty() ? kIds : member_ids(roster)))
                                    : std::nullopt};
  // Half the time address an existing desk by id or name, so that desk plans are reached.
  ResponderRequest addressed = request;
  const auto all_desks = DeskSet(desks).desks();
  if (!all_desks.empty() && *rc::gen::arbitrary<bool>()) {
    const Desk* desk = *rc::gen::elementOf(all_desks);
    addressed.chat = *rc::gen::arbitrary<bool>() ? desk->id : desk->name;
  }
  const auto details = *gen_candidates();
  const auto core = responder_plan(addressed, Roster(roster), DeskSet(desks), details);
  std::vector<model::Step> model_trace;
  const auto model = model::responder_plan(to_model(addressed), to_model(roster), to_model(desks),
                                           to_model(details), &model_trace);
  expect_same_plan(core, model);
  // SPEC §8: the traced call decides alike, and its steps are the model's.
  DecisionTrace trace;
  RC_ASSERT(responder_plan(addressed, Roster(roster), DeskSet(desks), details, trace) == core);
  RC_ASSERT(to_model(trace) == model_trace);
  if (const auto team = prepared(roster, desks)) {
    RC_ASSERT(responder_plan(addressed, *team, details) == core);
    DecisionTrace on_team;
    RC_ASSERT(responder_plan(addressed, *team, details, on_team) == core);
    RC_ASSERT(on_team == trace);
  }
}

// The desk plan on its own: an auto desk staffed from the roster, details that sometimes
// repeat a candidate or name strangers, selection allowed or not.
RC_GTEST_PROP(Differential, DeskPlansAgree, ()) {
  const RosterSnapshot roster = *gen_roster();
  const auto staff = member_ids(roster);
  RC_PRE(!staff.empty());
  std::vector<std::string> members;
  const int n = *rc::gen::weightedElement<int>({{1, 1}, {3, 2}, {3, 3}, {1, 5}});
  for (int i = 0; i < n; ++i) members.push_back(*rc::gen::elementOf(staff));
  const DeskSnapshot desks{
      .declared = {{.id = "eng",
                    .name = "Engineering",
                    .members = members,
                    .responder_mode = *rc::gen::weightedElement<ResponderMode>(
                        {{1, ResponderMode::Lead}, {4, ResponderMode::Auto}})}}};
  const ResponderRequest request{
      .message = "m",
      .chat = "Engineering",
      .orchestrator_id = "orch",
      .selection_policy = *rc::gen::weightedElement<SelectionPolicy>(
          {{4, SelectionPolicy::Allowed}, {1, SelectionPolicy::Disabled}})};
  std::vector<SelectorCandidate> details;
  for (const std::string& id : *gen_ids(3))
    details.push_back({.id = id, .label = "L" + id, .role = "R"});
  if (*rc::gen::inRange(0, 4) == 0)
    details.push_back({.id = *rc::gen::elementOf(staff), .label = "twin", .role = "R"});
  const auto core = responder_plan(request, Roster(roster), DeskSet(desks), details);
  std::vector<model::Step> model_trace;
  const auto model = model::responder_plan(to_model(request), to_model(roster), to_model(desks),
                                           to_model(details), &model_trace);
  expect_same_plan(core, model);
  DecisionTrace trace;
  RC_ASSERT(responder_plan(request, Roster(roster), DeskSet(desks), details, trace) == core);
  RC_ASSERT(to_model(trace) == model_trace);
  if (const auto team = prepared(roster, desks)) {
    RC_ASSERT(responder_plan(request, *team, details) == core);
  }
}

RC_GTEST_PROP(Differential, SelectionAgrees, ()) {
  const auto candidates = *gen_candidates();
  const std::string output = *gen_selector_output(candidates);
  RC_ASSERT(accept_selection(output, candidates) ==
            model::accept_selection(output, to_model(candidates)));
  const SelectionEvaluation evaluation = *gen_evaluation(candidates);
  const Probability minimum{*rc::gen::inRange<std::uint32_t>(0, kProbabilityScale + 2)};
  RC_ASSERT(accept_evaluation(evaluation, candidates, minimum) ==
            model::accept_evaluation(to_model(evaluation), to_model(candidates),
                                     minimum.parts_per_million));

  const Select plan{.request = {.message = "m", .desk_id = "eng", .candidates = candidates},
                    .fallback = {.responder_id = "lead",
                                 .rung = ResponderRung::DeskDefault,
                                 .disposition = SelectionDisposition::Unavailable}};
  const SelectorResult selector = *rc::gen::elementOf(
      std::vector<SelectorResult>{SelectorAbsent{}, SelectorFailed{}, SelectorText{output},
                                  SelectorEvaluation{evaluation, minimum}});
  std::vector<model::Step> model_trace;
  const ResponderDecision decision = settle_selection(plan, selector);
  RC_ASSERT(decision == to_core(model::settle_selection(to_model(ResponderPlan{plan}),
                                                        to_model(selector), &model_trace)));
  DecisionTrace trace;
  RC_ASSERT(settle_selection(plan, selector, trace) == decision);
  const auto why = [](const TraceStep& step) {
    return step.why ? std::string(name(*step.why)) : std::string("accepted");
  };
  RC_TAG(trace.size() > 1 ? std::string(name(trace[1].rule)) + " " + why(trace[1]) : why(trace[0]));
  RC_ASSERT(to_model(trace) == model_trace);
}

RC_GTEST_PROP(Differential, MentionDispatchAgrees, ()) {
  const RosterSnapshot roster = *gen_roster();
  const MentionDispatchPolicy policy = *gen_policy(member_ids(roster));
  MentionDispatchInput input = *gen_dispatch_input();
  input.chain = *gen_chain(member_ids(roster));
  // Mostly a member writing inside its hop budget, so that the later steps are reached.
  if (!roster.members.empty() && *rc::gen::inRange(0, 4) != 0) {
    input.author_id = (*rc::gen::elementOf(roster.members)).id;
  }
  if (policy.max_hops > 0 && *rc::gen::inRange(0, 6) != 0) {
    input.hop = *rc::gen::inRange<std::uint32_t>(0, std::min<std::uint32_t>(policy.max_hops, 5));
  }
  for (Mention& mention : input.mentions) {
    if (!roster.members.empty() && *rc::gen::arbitrary<bool>()) {
      mention.target = AgentTarget{(*rc::gen::elementOf(roster.members)).id};
    }
  }
  // Now and then the chain ends with, or already holds, an agent the reply names.
  for (const Mention& mention : input.mentions) {
    const auto* agent = std::get_if<AgentTarget>(&mention.target);
    if (agent != nullptr && one_in(3)) input.chain.push_back(agent->id);
  }
  const auto core = mention_dispatch(policy, input, Roster(roster));
  std::vector<model::Step> model_trace;
  const auto model =
      model::mention_dispatch(to_model(policy), to_model(input), to_model(roster), &model_trace);
  DecisionTrace trace;
  RC_ASSERT(mention_dispatch(policy, input, Roster(roster), trace) == core);
  RC_ASSERT(to_model(trace) == model_trace);
  RC_TAG(!core ? std::string(name(core.error()))
         : std::holds_alternative<DispatchOne>(*core)
             ? std::string("one")
             : std::string(name(std::get<NoDispatch>(*core).reason)));
  RC_ASSERT(core.has_value() == model.value.has_value());
  if (core) {
    RC_ASSERT(*core == to_core(*model.value));
  } else {
    RC_ASSERT(bridge::to_model_error(core.error()) == *model.error);
  }
  if (const auto team = prepared(roster)) {
    RC_ASSERT(mention_dispatch(policy, input, *team) == core);
    DecisionTrace on_team;
    RC_ASSERT(mention_dispatch(policy, input, *team, on_team) == core);
    RC_ASSERT(on_team == trace);
  }
  const MentionDispatchContext context{.policy = policy, .hop = input.hop, .chain = input.chain};
  RC_ASSERT(context.may_dispatch() == model::may_dispatch(to_model(context)));
}

// SPEC §7: whether a briefing offers dispatch, with the shape rules asked of its teammates.
RC_GTEST_PROP(Differential, BriefingOffersAgree, ()) {
  const RosterSnapshot roster = *gen_roster();
  const auto staff = member_ids(roster);
  TeamBriefing briefing{.viewer_id = *rc::gen::elementOf(staff.empty() ? kIds : staff)};
  for (const std::string& id : *gen_ids(3)) briefing.teammates.push_back({.id = id, .label = id});
  const MentionDispatchContext context{
      .policy = *gen_policy(staff), .hop = *gen_hop_count(), .chain = *gen_chain(staff)};
  const bool offered = briefing.offers_dispatch_under(context);
  std::vector<std::string> teammates;
  for (const BriefedTeammate& mate : briefing.teammates) teammates.push_back(mate.id);
  RC_TAG(offered ? "offered" : "withheld");
  RC_ASSERT(offered ==
            model::briefing_offers_dispatch(to_model(context), briefing.viewer_id, teammates));
  RC_ASSERT(offered == offers_dispatch(briefing.system_text_with_dispatch(context)));
  if (!context.policy.shapes_chains()) RC_ASSERT(offered == context.may_dispatch());
}

RC_GTEST_PROP(Differential, BriefingTeammatesAgree, ()) {
  const RosterSnapshot roster = *gen_roster();
  const DeskSnapshot desks = *gen_desks(member_ids(roster));
  const auto chat = *gen_chat();
  const Conversation conversation{.desk_id = chat.value_or(""),
                                  .desk_name = (*gen_chat()).value_or("Desk")};
  const std::string viewer = *gen_id();
  const auto core =
      TeamBriefing::from_snapshots(viewer, conversation, DeskSet(desks), Roster(roster));
  const auto model =
      model::brief(viewer, to_model(conversation), to_model(desks), to_model(roster));
  RC_TAG(core ? (core->teammates.empty() ? "no teammates" : "teammates")
              : std::string(name(core.error())));
  RC_ASSERT(core.has_value() == model.value.has_value());
  if (const auto team = prepared(roster, desks)) {
    RC_ASSERT(TeamBriefing::from_team(viewer, conversation, *team) == core);
  }
  if (!core) {
    const model::Error error =
        std::visit([](const auto& e) { return bridge::to_model_error(e); }, core.error());
    RC_ASSERT(error == *model.error);
    return;
  }
  RC_ASSERT(core->desk_id == model.value->desk_id);
  RC_ASSERT(core->desk_name == model.value->desk_name);
  std::vector<std::pair<std::string, std::string>> teammates;
  for (const BriefedTeammate& mate : core->teammates) teammates.emplace_back(mate.id, mate.label);
  RC_ASSERT(teammates == model.value->teammates);
}

RC_GTEST_PROP(Differential, DispatchMentionAgrees, ()) {
  const RosterSnapshot roster = *gen_roster();
  const MentionDispatchPolicy policy{.enabled = true, .max_hops = 3};
  MentionDispatchInput input = *gen_dispatch_input();
  input.hop = *rc::gen::inRange<std::uint32_t>(0, 4);
  if (!roster.members.empty()) input.author_id = (*rc::gen::elementOf(roster.members)).id;
  for (Mention& mention : input.mentions) {
    if (!roster.members.empty() && *rc::gen::arbitrary<bool>()) {
      mention.target = AgentTarget{(*rc::gen::elementOf(roster.members)).id};
    }
  }
  const Result<EnqueueOutcome, QueueError> answer =
      *rc::gen::elementOf(std::vector<Result<EnqueueOutcome, QueueError>>{
          EnqueueOutcome{Enqueued{}}, EnqueueOutcome{Already{}},
          EnqueueOutcome{Refused{EnqueueRefusal::Unauthorized}},
          EnqueueOutcome{Refused{EnqueueRefusal::FeatureDisabled}},
          unexpected{QueueError{.kind = QueueErrorKind::Indeterminate, .message = "lost"}}});
  if (const auto team = prepared(roster)) {
    bridge::ScriptedQueue prepared_queue(answer);
    bridge::ScriptedQueue view_queue(answer);
    RC_ASSERT(dispatch_mention(prepared_queue, policy, input, *team) ==
              dispatch_mention(view_queue, policy, input, Roster(roster)));
    RC_ASSERT(prepared_queue.calls() == view_queue.calls());
  }
  bridge::ScriptedQueue queue(answer);
  const auto core = dispatch_mention(queue, policy, input, Roster(roster));
  const auto model = model::dispatch_mention(to_model(answer), to_model(policy), to_model(input),
                                             to_model(roster));
  RC_TAG(core ? std::string("outcome") : std::string(name(core.error())));
  RC_ASSERT(queue.calls() == model.queue_calls);
  RC_ASSERT(core.has_value() == !model.error.has_value());
  if (core) {
    RC_ASSERT(*core == bridge::to_core_outcome(model));
  } else if (const auto* failure = std::get_if<EnqueueFailure>(&core.error())) {
    RC_ASSERT(model.error->variant == "Enqueue");
    RC_ASSERT(failure->error == answer.error());
  } else {
    RC_ASSERT(model.error->variant == "Core");
    RC_ASSERT(bridge::to_model_error(std::get<CoreFailure>(core.error()).core) == *model.core);
  }
}

// Enough distinct agents to pass the cap of 50 pinging mentions.
RC_GTEST_PROP(Differential, TheMentionCapAgrees, ()) {
  RosterSnapshot roster;
  std::vector<std::string> ids;
  for (int i = 0; i < 60; ++i) ids.push_back("a" + std::to_string(i));
  for (const std::string& id : ids) roster.members.push_back({.id = id});
  // Every agent at least once (so more than 50 distinct targets), plus repeats and strangers.
  std::vector<std::string> named = ids;
  for (int i = *rc::gen::inRange(0, 20); i > 0; --i) named.push_back(*rc::gen::elementOf(ids));
  named.push_back("ghost");
  std::string body;
  for (const std::string& id : shuffled(named)) body += "@" + id + " ";
  const DeskSnapshot desks;
  const auto core =
      resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  const auto model =
      model::resolve_mentions(body, std::nullopt, {"other", ""}, to_model(roster), to_model(desks));
  RC_ASSERT(core == to_core(model));
  std::size_t pinging = 0;
  for (const Mention& m : core) pinging += m.quiet ? 0 : 1;
  RC_ASSERT(pinging == kMentionCap);
}

// SPEC §2.2: an ambiguous desk name goes straight to the orchestrator, even when an agent
// has that name or id.
RC_GTEST_PROP(Differential, AnAmbiguousDeskNameSkipsTheDirectAgentRung, ()) {
  RosterSnapshot roster{.members = {{.id = "orch"}, {.id = "alice"}}};
  if (*rc::gen::arbitrary<bool>()) {
    roster.members.push_back({.id = "Shared"});
  } else {
    roster.members.push_back({.id = "sam", .name = "Shared"});
  }
  const DeskSnapshot desks{.declared = {{.id = "d1", .name = "Shared", .members = *gen_ids(2)},
                                        {.id = "d2", .name = "Shared", .members = *gen_ids(2)}}};
  const ResponderRequest request{.message = "m",
                                 .chat = *rc::gen::element<std::string>("Shared", "dm:Shared"),
                                 .orchestrator_id = "orch"};
  const auto core = responder_plan(request, Roster(roster), DeskSet(desks), {});
  const auto model =
      model::responder_plan(to_model(request), to_model(roster), to_model(desks), {});
  RC_ASSERT(core.has_value() && model.value.has_value());
  RC_ASSERT(*core == to_core(*model.value));
  if (request.chat == "Shared") {
    const ResponderPlan orchestrator =
        Decided{{.responder_id = "orch", .rung = ResponderRung::Orchestrator}};
    RC_ASSERT(*core == orchestrator);
  }
}

// Past every size where a prepared team's indexes change shape (gen_large_roster), with
// retired and tombstoned namesakes of active agents and desk names that differ only in
// case: the team answers as the views, and the core as the model, for every decision that
// reads the roster, two mentions at one offset included.
RC_GTEST_PROP(Differential, DecisionsAgreePastEveryIndexSize, ()) {
  const RosterSnapshot roster = *gen_large_roster();
  const auto staff = member_ids(roster);
  const DeskSnapshot desks = *gen_case_twin_desks(staff);
  expect_team_agrees(roster, desks);
  const auto team = prepared(roster, desks);

  std::string body;
  for (int i = uniform(1, 6); i > 0; --i) {
    const RosterMember& member = *rc::gen::elementOf(roster.members);
    body += *rc::gen::element<std::string>(" @", "\n@", " (@") +
            (member.name && one_in(2) ? *member.name : member.id) +
            *rc::gen::element<std::string>(" ", ", ", ")");
  }
  body += *rc::gen::element<std::string>(" @#Ops", " @#ops", " @#OPS", "");
  const MentionAuthor author = *gen_author();
  const auto mentions =
      resolve_mentions(body, std::nullopt, author, Roster(roster), DeskSet(desks));
  RC_ASSERT(mentions == to_core(model::resolve_mentions(body, std::nullopt, to_model(author),
                                                        to_model(roster), to_model(desks))));
  if (team) RC_ASSERT(resolve_mentions(body, std::nullopt, author, *team) == mentions);

  ResponderRequest request{
      .message = body,
      .chat = *rc::gen::element<std::string>("Ops", "ops", "OPS", "ops-2", "alice"),
      .mentions = one_in(2) ? std::vector<Mention>{} : mentions,
      .orchestrator_id = "orch"};
  if (one_in(3)) request.thread_responder = *rc::gen::elementOf(staff);
  std::vector<model::Step> model_steps;
  const auto plan = responder_plan(request, Roster(roster), DeskSet(desks), {});
  expect_same_plan(plan, model::responder_plan(to_model(request), to_model(roster), to_model(desks),
                                               {}, &model_steps));
  DecisionTrace steps;
  RC_ASSERT(responder_plan(request, Roster(roster), DeskSet(desks), {}, steps) == plan);
  RC_ASSERT(to_model(steps) == model_steps);
  if (team) RC_ASSERT(responder_plan(request, *team, {}) == plan);

  MentionDispatchInput reply{.author_id = *rc::gen::elementOf(staff),
                             .content = body,
                             .mentions = mentions,
                             .hop = 1,
                             .chain = *gen_chain(staff)};
  if (!reply.mentions.empty() && one_in(2)) {  // a second mention at the first one's offset
    Mention twin = reply.mentions.front();
    twin.target = AgentTarget{*rc::gen::elementOf(staff)};
    reply.mentions.insert(reply.mentions.begin() + (one_in(2) ? 0 : 1), twin);
  }
  const MentionDispatchPolicy policy = *gen_policy(staff);
  std::vector<model::Step> model_dispatch;
  const auto decision = mention_dispatch(policy, reply, Roster(roster));
  const auto model_decision =
      model::mention_dispatch(to_model(policy), to_model(reply), to_model(roster), &model_dispatch);
  RC_ASSERT(decision.has_value() == model_decision.value.has_value());
  if (decision) RC_ASSERT(*decision == to_core(*model_decision.value));
  DecisionTrace dispatch_steps;
  RC_ASSERT(mention_dispatch(policy, reply, Roster(roster), dispatch_steps) == decision);
  RC_ASSERT(to_model(dispatch_steps) == model_dispatch);
  if (team) RC_ASSERT(mention_dispatch(policy, reply, *team) == decision);
}

}  // namespace
}  // namespace thm::properties
