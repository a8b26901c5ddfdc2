// The core's decisions against the reference model, and mention scanning against memchr.
//
// resolve_mentions/{thm,model,floor}: the core and the model resolve the mentions of prose
// bodies (256 B to 64 KiB, 0 to 100 mentions, rosters of 10 to 1 000 agents); the floor is
// one memchr pass counting the body's `@`s, the least any mention scanner reads. Two more
// families (`.body_scaling`, `.roster_scaling`) fit the core's time to body length and to
// roster size, which must both be linear.
//
// mention_dispatch.<path>, responder_plan.<rung>, accept_selection, accept_evaluation: the
// core against the model on the same inputs, one benchmark per decision path. Every input is
// run once before timing and must take the path its name says; model inputs are converted
// with thm::bridge outside the timed loop. Each benchmark also records `allocs`, the heap
// blocks one call allocates.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "alloc_count.hpp"
#include "thm/bridge/bridge.hpp"
#include "thm/core.hpp"
#include "thm/model/model.hpp"

namespace {

namespace model = thm::model;
using thm::bridge::to_core;
using thm::bridge::to_model;

// ---- the team ------------------------------------------------------------------------------

constexpr std::string_view kOrchestrator = "agent_0";
// The person who writes every scanned body.
constexpr std::string_view kBodyAuthor = "p1";

std::string agent_id(std::size_t index) { return "agent_" + std::to_string(index); }

// A chat's snapshots: `agents` active agents `agent_0` … (display names with a space, so
// only ids are aliases), one retired agent `former`, two people, and two desks: `eng`
// (lead mode: agent_1..3) and `research` (auto mode: agent_4..7). Needs at least 8 agents.
struct Team {
  thm::RosterSnapshot roster;
  thm::DeskSnapshot desks;
};

Team make_team(std::size_t agents) {
  Team team;
  for (std::size_t i = 0; i < agents; ++i) {
    team.roster.members.push_back({.id = agent_id(i), .name = "Agent " + std::to_string(i)});
  }
  team.roster.members.push_back({.id = "former", .name = "Former Agent"});
  team.roster.people = {{.id = std::string(kBodyAuthor), .label = "Dana Smith"},
                        {.id = "p2", .label = "Lee Wong"}};
  team.roster.retired = {"former"};
  team.desks.declared = {
      {.id = "eng",
       .name = "Engineering",
       .description = "Builds and ships the service",
       .members = {agent_id(1), agent_id(2), agent_id(3)},
       .responder_mode = thm::ResponderMode::Lead},
      {.id = "research",
       .name = "Research",
       .members = {agent_id(4), agent_id(5), agent_id(6), agent_id(7)},
       .responder_mode = thm::ResponderMode::Auto},
  };
  team.desks.retired = {"former"};
  return team;
}

// The team every decision benchmark reads.
const Team& decision_team() {
  static const Team team = make_team(8);
  return team;
}

// ---- message bodies ------------------------------------------------------------------------

// Prose shaped like model/corpus/messages.json (whose words are already replaced): headings,
// a list, an inline code span, parentheses, CJK and Cyrillic text, an emoji. No `@`, and no
// code span contains whitespace, so a mention put after a whitespace run is never code.
constexpr std::string_view kProse =
    "### Hn fmtxl ht dpzutynk qccsi ivp inus?\n\n"
    "- [t] O nknz yivvuspn qsb ooxehdtl cyrrxk\n\n"
    "Tdzo jtg gzd kwcrvjaykbx hj c dgzcnuh eletagq kg'f ji f zqqk hhqup (xxllk oj txdr) fbh "
    "exakrzazohymi vioo lmsqs amqg uwa. Saeq le exz qtof kihtcmc wmfajupvj vz hexsuaci cfh "
    "vfwnbhapf ut cku zzboyo ww ikn swetrno dqvhj:\n\n"
    "Nxkwf szf xwm ksymjuuqtjww sx xqq xeljfz la itwm XO. V gtmiocfdp equ med sbvg va sl "
    "sajrl vphimi bxff gnyy gd znudeirpxl.\n"
    "S dxlybax fnuc hkmo (mpf nmb) cc qtu yuptmqm zvbmdft cl qqt jf xuw lpzcsffhf "
    "`bowk_noltwmcwxvqj`. F darf ap lbqjx krw qzairzo jis cqgob cnjxexl ny fum jvn, fn ou "
    "zjees, imsqdp fbb hsdl ttzwceuuy S vtg cbpae jpud JF ax ou hhpeo lchoc rcois. Fatwc "
    "khjt xbnc/xuns?\n\n"
    "勲升鈓铓婈琰簦..圦奞澆鲨饟釋讅估！ Ыцргкео! Ecmi fxwriors !!! 🎊\n\n"
    "### Ypsxg Sb Meawmrtlr\n\n"
    "1. Nodbfui weebsmx nq p wsng mttkl\n"
    "2. Fkkxt fcn vwvcxcnw\n\n";

// kProse cut after each whitespace run: the places a mention may go.
std::vector<std::string_view> prose_pieces() {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  for (std::size_t i = 0; i < kProse.size(); ++i) {
    const bool space = kProse[i] == ' ' || kProse[i] == '\n';
    const bool next_space =
        i + 1 < kProse.size() && (kProse[i + 1] == ' ' || kProse[i + 1] == '\n');
    if (space && !next_space) {
      pieces.push_back(kProse.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  return pieces;
}

// The fewest bytes of body per mention: `@agent_999 ` and some prose around it.
constexpr std::size_t kBytesPerMention = 24;

bool mentions_fit(std::size_t body_size, std::size_t mentions) {
  return mentions * kBytesPerMention <= body_size;
}

// A body of exactly `size` bytes cut into `mentions` equal slices, each opening with a
// mention `@agent_N` (N spread over a roster of `roster` agents, so a small roster is
// mentioned repeatedly); the rest is prose, padded with spaces at the end.
std::string make_body(std::size_t size, std::size_t mentions, std::size_t roster) {
  static const std::vector<std::string_view> pieces = prose_pieces();
  std::string body;
  std::size_t next = 0;
  const auto fill_to = [&](std::size_t end) {
    while (body.size() + pieces[next].size() <= end) {
      body += pieces[next];
      next = (next + 1) % pieces.size();
    }
  };
  for (std::size_t m = 0; m < mentions; ++m) {
    fill_to(m * size / mentions);
    body += '@';
    body += agent_id(m * roster / mentions);
    body += ' ';
  }
  fill_to(size);
  body.resize(size, ' ');
  return body;
}

// ---- resolve_mentions ----------------------------------------------------------------------

std::size_t arg(const benchmark::State& state, std::size_t index) {
  return static_cast<std::size_t>(state.range(index));
}

// Issue 9's grid: bodies of 256 B, 4 KiB and 64 KiB with 0, 10 and 100 mentions, rosters
// of 10, 100 and 1 000 agents; a body too short for its mentions is left out.
void resolve_mentions_grid(benchmark::internal::Benchmark* bench) {
  for (const std::int64_t body : {256, 4096, 65536}) {
    for (const std::int64_t mentions : {0, 10, 100}) {
      if (!mentions_fit(static_cast<std::size_t>(body), static_cast<std::size_t>(mentions))) {
        continue;
      }
      for (const std::int64_t roster : {10, 100, 1000}) bench->Args({body, mentions, roster});
    }
  }
  bench->ArgNames({"body", "mentions", "roster"});
}

// One resolve_mentions input: the team, and a body holding `mentions` mentions of it.
struct MentionScan {
  Team team;
  std::string body;
  std::size_t mentions = 0;
};

MentionScan make_scan(std::size_t body_size, std::size_t mentions, std::size_t roster) {
  return {.team = make_team(roster),
          .body = make_body(body_size, mentions, roster),
          .mentions = mentions};
}

thm::MentionAuthor body_author() { return thm::PersonAuthor{std::string(kBodyAuthor)}; }

void report_bytes(benchmark::State& state, const MentionScan& scan) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(scan.body.size()));
}

// Times the core's resolve_mentions on `scan` once it finds every mention there.
void time_core_scan(benchmark::State& state, const MentionScan& scan) {
  const thm::Roster roster(scan.team.roster);
  const thm::DeskSet desks(scan.team.desks);
  const thm::MentionAuthor author = body_author();
  const auto resolve = [&] {
    return thm::resolve_mentions(scan.body, std::nullopt, author, roster, desks);
  };
  if (resolve().size() != scan.mentions) {
    state.SkipWithError("the core did not find every mention of the body");
    return;
  }
  thm::bench::time_calls(state, resolve);
  report_bytes(state, scan);
}

void BM_ResolveMentions(benchmark::State& state) {
  time_core_scan(state, make_scan(arg(state, 0), arg(state, 1), arg(state, 2)));
}

void BM_ResolveMentionsModel(benchmark::State& state) {
  const MentionScan scan = make_scan(arg(state, 0), arg(state, 1), arg(state, 2));
  const model::Roster roster = to_model(scan.team.roster);
  const model::Desks desks = to_model(scan.team.desks);
  const model::Author author = to_model(body_author());
  const auto resolve = [&] {
    return model::resolve_mentions(scan.body, std::nullopt, author, roster, desks);
  };
  if (resolve().size() != scan.mentions) {
    state.SkipWithError("the model did not find every mention of the body");
    return;
  }
  thm::bench::time_calls(state, resolve);
  report_bytes(state, scan);
}

// The `@`s of `body`, found by memchr from each one to the end.
std::size_t count_at_signs(std::string_view body) {
  std::size_t count = 0;
  const char* const end = body.data() + body.size();
  for (const char* at = body.data(); at != end; ++at) {
    at = static_cast<const char*>(std::memchr(at, '@', static_cast<std::size_t>(end - at)));
    if (at == nullptr) break;
    ++count;
  }
  return count;
}

void BM_ResolveMentionsFloor(benchmark::State& state) {
  const MentionScan scan = make_scan(arg(state, 0), arg(state, 1), arg(state, 2));
  if (count_at_signs(scan.body) != scan.mentions) {
    state.SkipWithError("the body has an `@` that is not a mention");
    return;
  }
  thm::bench::time_calls(state, [&] { return count_at_signs(scan.body); });
  report_bytes(state, scan);
}

// Ten mentions of a roster of 100 in bodies of 4 KiB to 1 MiB (complexity N: body bytes).
void BM_ResolveMentionsBodyScaling(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  time_core_scan(state, make_scan(arg(state, 0), 10, 100));
}

// Ten mentions in a 4 KiB body, with rosters of 10 to 10 000 agents (complexity N: agents).
void BM_ResolveMentionsRosterScaling(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  time_core_scan(state, make_scan(4096, 10, arg(state, 0)));
}

// ---- mention_dispatch ----------------------------------------------------------------------

constexpr std::string_view kDispatchOne = "dispatch_one";

// The path a dispatch decision took: its refusal's wire token, or `dispatch_one`.
std::string_view path_of(const thm::MentionDispatchDecision& decision) {
  return std::visit(thm::overloaded{
                        [](const thm::NoDispatch& refusal) { return thm::name(refusal.reason); },
                        [](const thm::DispatchOne&) { return kDispatchOne; },
                    },
                    decision);
}

// A mention of agent `id` opening a message.
thm::Mention agent_mention(std::string id) {
  return {.target = thm::AgentTarget{id}, .text = "@" + id, .offset = 0};
}

// One path through mention_dispatch (SPEC §3.2): its name and an input that takes it.
struct DispatchCase {
  std::string_view path;
  thm::MentionDispatchPolicy policy;
  thm::MentionDispatchInput input;
};

// A committed reply by `author` opening with `mention`, at depth `hop`.
thm::MentionDispatchInput reply(std::string author, thm::Mention mention, std::uint32_t hop = 1) {
  std::string content = mention.text;
  content += " the migration is ready; can you run the load test against staging tonight?";
  return {.key = {.trigger_sequence = 4242},
          .conversation = {.desk_id = "eng", .thread_root = 4200},
          .author_id = std::move(author),
          .content = std::move(content),
          .mentions = {std::move(mention)},
          .hop = hop};
}

std::vector<DispatchCase> dispatch_cases() {
  using Reason = thm::NoDispatchReason;
  const thm::MentionDispatchPolicy on{.enabled = true, .max_hops = 3};
  const thm::MentionDispatchPolicy off{.enabled = false, .max_hops = 3};
  const thm::Mention desk_mention{.target = thm::DeskTarget{"eng"}, .text = "@eng", .offset = 0};
  return {
      {thm::name(Reason::Disabled), off, reply("agent_1", agent_mention("agent_2"))},
      {thm::name(Reason::HopLimitReached), on, reply("agent_1", agent_mention("agent_2"), 3)},
      {thm::name(Reason::SourceInactive), on, reply("former", agent_mention("agent_2"))},
      {thm::name(Reason::NoDirectAgentMention), on, reply("agent_1", desk_mention)},
      {thm::name(Reason::SelfMention), on, reply("agent_1", agent_mention("agent_1"))},
      {thm::name(Reason::TargetInactive), on, reply("agent_1", agent_mention("former"))},
      {kDispatchOne, on, reply("agent_1", agent_mention("agent_2"))},
  };
}

void BM_MentionDispatch(benchmark::State& state, const DispatchCase& scenario) {
  const thm::Roster roster(decision_team().roster);
  const auto decide = [&] {
    return thm::mention_dispatch(scenario.policy, scenario.input, roster);
  };
  const auto decision = decide();
  if (!decision || path_of(*decision) != scenario.path) {
    state.SkipWithError("the core took another path");
    return;
  }
  thm::bench::time_calls(state, decide);
}

void BM_MentionDispatchModel(benchmark::State& state, const DispatchCase& scenario) {
  const model::Roster roster = to_model(decision_team().roster);
  const model::Policy policy = to_model(scenario.policy);
  const model::DispatchInput input = to_model(scenario.input);
  const auto decide = [&] { return model::mention_dispatch(policy, input, roster); };
  const auto decision = decide();
  if (!decision.value || path_of(to_core(*decision.value)) != scenario.path) {
    state.SkipWithError("the model took another path");
    return;
  }
  thm::bench::time_calls(state, decide);
}

// ---- responder_plan ------------------------------------------------------------------------

constexpr std::string_view kDeskSelect = "desk_select";

// The path a plan took: the deciding rung's wire token, or `desk_select`.
std::string_view path_of(const thm::ResponderPlan& plan) {
  return std::visit(
      thm::overloaded{
          [](const thm::Decided& decided) { return thm::name(decided.decision.rung); },
          [](const thm::Select&) { return kDeskSelect; },
      },
      plan);
}

// One rung of the responder ladder (SPEC §2.2, §2.3): its name and a request that reaches it.
struct ResponderCase {
  std::string_view path;
  thm::ResponderRequest request;
};

// A person's message addressed to `chat`, with `mentions` already resolved.
thm::ResponderRequest message_to(std::optional<std::string> chat,
                                 std::vector<thm::Mention> mentions = {}) {
  return {.message = "Could someone look at why the nightly build times out?",
          .chat = std::move(chat),
          .mentions = std::move(mentions),
          .orchestrator_id = std::string(kOrchestrator)};
}

std::vector<ResponderCase> responder_cases() {
  using Rung = thm::ResponderRung;
  return {
      {thm::name(Rung::ExplicitMention), message_to("eng", {agent_mention("agent_5")})},
      {thm::name(Rung::DeskDefault), message_to("eng")},
      {kDeskSelect, message_to("research")},
      {thm::name(Rung::DirectAgent), message_to("dm:agent_3")},
      {thm::name(Rung::Orchestrator), message_to(std::nullopt)},
  };
}

// What the host tells a selector about the research desk's members.
const std::vector<thm::SelectorCandidate>& selector_details() {
  static const std::vector<thm::SelectorCandidate> details = {
      {.id = "agent_4", .label = "Agent 4", .role = "Profiling", .description = "CPU and memory"},
      {.id = "agent_5", .label = "Agent 5", .role = "Build systems"},
      {.id = "agent_6", .label = "Agent 6", .role = "Flaky tests", .description = "CI history"},
      {.id = "agent_7", .label = "Agent 7", .role = "Release notes"},
  };
  return details;
}

void BM_ResponderPlan(benchmark::State& state, const ResponderCase& scenario) {
  const thm::Roster roster(decision_team().roster);
  const thm::DeskSet desks(decision_team().desks);
  const auto plan = [&] {
    return thm::responder_plan(scenario.request, roster, desks, selector_details());
  };
  const auto first = plan();
  if (!first || path_of(*first) != scenario.path) {
    state.SkipWithError("the core took another rung");
    return;
  }
  thm::bench::time_calls(state, plan);
}

void BM_ResponderPlanModel(benchmark::State& state, const ResponderCase& scenario) {
  const model::Roster roster = to_model(decision_team().roster);
  const model::Desks desks = to_model(decision_team().desks);
  const model::ResponderRequest request = to_model(scenario.request);
  const std::vector<model::Candidate> details = to_model(selector_details());
  const auto plan = [&] { return model::responder_plan(request, roster, desks, details); };
  const auto first = plan();
  if (!first.value || path_of(to_core(*first.value)) != scenario.path) {
    state.SkipWithError("the model took another rung");
    return;
  }
  thm::bench::time_calls(state, plan);
}

// ---- accept_selection, accept_evaluation ---------------------------------------------------

// `count` candidates `agent_0` …, as a Select plan lists them.
std::vector<thm::SelectorCandidate> make_candidates(std::size_t count) {
  std::vector<thm::SelectorCandidate> candidates;
  for (std::size_t i = 0; i < count; ++i) {
    candidates.push_back(
        {.id = agent_id(i), .label = "Agent " + std::to_string(i), .role = "Teammate"});
  }
  return candidates;
}

// A selector's free-text answer naming the last candidate the way models write it:
// capitalized, quoted, with a full stop and a newline.
std::string selector_text(const std::vector<thm::SelectorCandidate>& candidates) {
  return "\"Agent_" + std::to_string(candidates.size() - 1) + "\".\n";
}

// A typed answer choosing the last candidate: every other candidate gets 1/(2n) of the
// whole, the choice the rest, so the distribution sums to exactly kProbabilityScale.
thm::SelectionEvaluation make_evaluation(const std::vector<thm::SelectorCandidate>& candidates) {
  const std::uint32_t others = static_cast<std::uint32_t>(candidates.size() - 1);
  const std::uint32_t share = thm::kProbabilityScale / (2 * (others + 1));
  thm::SelectionEvaluation evaluation{.choice = candidates.back().id,
                                      .confidence = {.parts_per_million = 900'000}};
  for (const thm::SelectorCandidate& candidate : candidates) {
    const bool chosen = candidate.id == evaluation.choice;
    evaluation.probabilities.push_back(
        {.candidate_id = candidate.id,
         .probability = {.parts_per_million =
                             chosen ? thm::kProbabilityScale - others * share : share}});
  }
  return evaluation;
}

constexpr thm::Probability kMinimumConfidence{.parts_per_million = 600'000};

void BM_AcceptSelection(benchmark::State& state) {
  const auto candidates = make_candidates(arg(state, 0));
  const std::string output = selector_text(candidates);
  const auto accept = [&] { return thm::accept_selection(output, candidates); };
  if (accept() != candidates.back().id) {
    state.SkipWithError("the core did not accept the last candidate");
    return;
  }
  thm::bench::time_calls(state, accept);
}

void BM_AcceptSelectionModel(benchmark::State& state) {
  const auto core_candidates = make_candidates(arg(state, 0));
  const std::string output = selector_text(core_candidates);
  const std::vector<model::Candidate> candidates = to_model(core_candidates);
  const auto accept = [&] { return model::accept_selection(output, candidates); };
  if (accept() != core_candidates.back().id) {
    state.SkipWithError("the model did not accept the last candidate");
    return;
  }
  thm::bench::time_calls(state, accept);
}

void BM_AcceptEvaluation(benchmark::State& state) {
  const auto candidates = make_candidates(arg(state, 0));
  const thm::SelectionEvaluation evaluation = make_evaluation(candidates);
  const auto accept = [&] {
    return thm::accept_evaluation(evaluation, candidates, kMinimumConfidence);
  };
  if (accept() != candidates.back().id) {
    state.SkipWithError("the core did not accept the evaluation");
    return;
  }
  thm::bench::time_calls(state, accept);
}

void BM_AcceptEvaluationModel(benchmark::State& state) {
  const auto core_candidates = make_candidates(arg(state, 0));
  const model::Evaluation evaluation = to_model(make_evaluation(core_candidates));
  const std::vector<model::Candidate> candidates = to_model(core_candidates);
  const auto accept = [&] {
    return model::accept_evaluation(evaluation, candidates, kMinimumConfidence.parts_per_million);
  };
  if (accept() != core_candidates.back().id) {
    state.SkipWithError("the model did not accept the evaluation");
    return;
  }
  thm::bench::time_calls(state, accept);
}

// Issue 9's candidate counts: 2, 8 and 64.
void candidate_counts(benchmark::internal::Benchmark* bench) {
  bench->Arg(2)->Arg(8)->Arg(64)->ArgName("candidates");
}

// ---- registration --------------------------------------------------------------------------

// Names are `<operation>[.<case>]/<impl>` then Google Benchmark's argument suffixes, with
// `impl` one of thm, model, floor; a baseline's suffixes equal its thm benchmark's.
void register_benchmarks() {
  using benchmark::kMicrosecond;
  using benchmark::RegisterBenchmark;

  RegisterBenchmark("resolve_mentions/thm", BM_ResolveMentions)
      ->Apply(resolve_mentions_grid)
      ->Unit(kMicrosecond);
  RegisterBenchmark("resolve_mentions/floor", BM_ResolveMentionsFloor)
      ->Apply(resolve_mentions_grid)
      ->Unit(kMicrosecond);
  RegisterBenchmark("resolve_mentions/model", BM_ResolveMentionsModel)
      ->Apply(resolve_mentions_grid)
      ->Unit(kMicrosecond);
  RegisterBenchmark("resolve_mentions.body_scaling/thm", BM_ResolveMentionsBodyScaling)
      ->RangeMultiplier(2)
      ->Range(1 << 12, 1 << 20)
      ->ArgName("body")
      ->Complexity(benchmark::oN)
      ->Unit(kMicrosecond);
  RegisterBenchmark("resolve_mentions.roster_scaling/thm", BM_ResolveMentionsRosterScaling)
      ->RangeMultiplier(4)
      ->Range(10, 10'000)
      ->ArgName("roster")
      ->Complexity(benchmark::oN)
      ->Unit(kMicrosecond);

  for (const DispatchCase& scenario : dispatch_cases()) {
    const std::string operation = "mention_dispatch." + std::string(scenario.path);
    RegisterBenchmark((operation + "/thm").c_str(), BM_MentionDispatch, scenario);
    RegisterBenchmark((operation + "/model").c_str(), BM_MentionDispatchModel, scenario);
  }
  for (const ResponderCase& scenario : responder_cases()) {
    const std::string operation = "responder_plan." + std::string(scenario.path);
    RegisterBenchmark((operation + "/thm").c_str(), BM_ResponderPlan, scenario);
    RegisterBenchmark((operation + "/model").c_str(), BM_ResponderPlanModel, scenario);
  }

  RegisterBenchmark("accept_selection/thm", BM_AcceptSelection)->Apply(candidate_counts);
  RegisterBenchmark("accept_selection/model", BM_AcceptSelectionModel)->Apply(candidate_counts);
  RegisterBenchmark("accept_evaluation/thm", BM_AcceptEvaluation)->Apply(candidate_counts);
  RegisterBenchmark("accept_evaluation/model", BM_AcceptEvaluationModel)->Apply(candidate_counts);
}

}  // namespace

int main(int argc, char** argv) {
  register_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
