// The core's decisions against the reference model, and mention scanning against memchr and
// against Markdown parsers.
//
// `thm` is the core on a prepared team (thm::Team, adr/0016), which a host makes once per
// roster change; `views` is the same call on snapshot views (Roster, DeskSet), which
// validates the snapshots and builds the alias table on every call.
//
// resolve_mentions/{thm,views,model,floor}: the mentions of prose bodies (256 B to 64 KiB,
// 0 to 100 mentions, rosters of 10 to 10 000 agents); the floor is one memchr pass counting
// the body's `@`s, the least any mention scanner reads. `.roster` times a 256-byte message
// with 10 mentions against rosters of 10 to 10 000 agents (the chart); `.body_scaling` fits
// the prepared path's time to body length. `.corpus` resolves every message of
// model/corpus (their own agents, or 1 000 more) against a full CommonMark parse of the same
// bodies by cmark and by md4c (what a host that masks code with a Markdown parser does
// instead), and reports per-message ratios (`median_vs_cmark`, `worst_vs_md4c`, …).
//
// team_prepare/{thm,copy}: preparing a team against copying its snapshots, with the bytes
// of each (`index_bytes`, `snapshot_bytes`).
//
// mention_dispatch.<path>, responder_plan.<rung>, accept_selection, accept_evaluation: the
// core against the model on the same inputs, one benchmark per decision path. Every input is
// run once before timing and must take the path its name says; model inputs are converted
// with thm::bridge outside the timed loop. Each benchmark also records `allocs`, the heap
// blocks one call allocates.
#include <benchmark/benchmark.h>
#include <cmark.h>
#include <md4c.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
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
struct Snapshots {
  thm::RosterSnapshot roster{};
  thm::DeskSnapshot desks{};

  [[nodiscard]] thm::Team prepare() const { return *thm::Team::prepare(roster, desks); }
};

Snapshots make_team(std::size_t agents) {
  Snapshots team;
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

// The snapshots every decision benchmark reads, and the team prepared from them.
const Snapshots& decision_snapshots() {
  static const Snapshots snapshots = make_team(8);
  return snapshots;
}
const thm::Team& decision_team() {
  static const thm::Team team = decision_snapshots().prepare();
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

// The grid: bodies of 256 B, 4 KiB and 64 KiB with 0, 10 and 100 mentions, rosters
// of 10, 100, 1 000 and 10 000 agents, up to `largest_roster`; a body too
// short for its mentions is left out.
void resolve_mentions_grid(benchmark::internal::Benchmark* bench, std::int64_t largest_roster) {
  for (const std::int64_t body : {256, 4096, 65536}) {
    for (const std::int64_t mentions : {0, 10, 100}) {
      if (!mentions_fit(static_cast<std::size_t>(body), static_cast<std::size_t>(mentions))) {
        continue;
      }
      for (const std::int64_t roster : {10, 100, 1000, 10000}) {
        if (roster <= largest_roster) bench->Args({body, mentions, roster});
      }
    }
  }
  bench->ArgNames({"body", "mentions", "roster"});
}

// One resolve_mentions input: the team, and a body holding `mentions` mentions of it.
struct MentionScan {
  Snapshots team;
  std::string body;
  std::size_t mentions = 0;
};

MentionScan make_scan(std::size_t body_size, std::size_t mentions, std::size_t roster) {
  return {.team = make_team(roster),
          .body = make_body(body_size, mentions, roster),
          .mentions = mentions};
}

// The message of `.roster`: 256 bytes, 10 mentions.
MentionScan roster_scan(const benchmark::State& state) {
  return make_scan(256, 10, static_cast<std::size_t>(state.range(0)));
}

thm::MentionAuthor body_author() { return thm::PersonAuthor{std::string(kBodyAuthor)}; }

void report_bytes(benchmark::State& state, const MentionScan& scan) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(scan.body.size()));
}

// Times `resolve` on `scan` once it finds every mention there.
template <class Resolve>
void time_scan(benchmark::State& state, const MentionScan& scan, const Resolve& resolve) {
  if (resolve().size() != scan.mentions) {
    state.SkipWithError("resolve_mentions did not find every mention of the body");
    return;
  }
  thm::bench::time_calls(state, resolve);
  report_bytes(state, scan);
}

// The core on a team prepared (outside the timed loop) from the scan's snapshots.
void time_prepared_scan(benchmark::State& state, const MentionScan& scan) {
  const thm::Team team = scan.team.prepare();
  const thm::MentionAuthor author = body_author();
  time_scan(state, scan,
            [&] { return thm::resolve_mentions(scan.body, std::nullopt, author, team); });
}

// The core on views of the scan's snapshots.
void time_view_scan(benchmark::State& state, const MentionScan& scan) {
  const thm::Roster roster(scan.team.roster);
  const thm::DeskSet desks(scan.team.desks);
  const thm::MentionAuthor author = body_author();
  time_scan(state, scan,
            [&] { return thm::resolve_mentions(scan.body, std::nullopt, author, roster, desks); });
}

void time_model_scan(benchmark::State& state, const MentionScan& scan) {
  const model::Roster roster = to_model(scan.team.roster);
  const model::Desks desks = to_model(scan.team.desks);
  const model::Author author = to_model(body_author());
  time_scan(state, scan, [&] {
    return model::resolve_mentions(scan.body, std::nullopt, author, roster, desks);
  });
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

void time_floor_scan(benchmark::State& state, const MentionScan& scan) {
  if (count_at_signs(scan.body) != scan.mentions) {
    state.SkipWithError("the body has an `@` that is not a mention");
    return;
  }
  thm::bench::time_calls(state, [&] { return count_at_signs(scan.body); });
  report_bytes(state, scan);
}

MentionScan grid_scan(const benchmark::State& state) {
  return make_scan(arg(state, 0), arg(state, 1), arg(state, 2));
}

void BM_ResolveMentions(benchmark::State& state) { time_prepared_scan(state, grid_scan(state)); }
void BM_ResolveMentionsViews(benchmark::State& state) { time_view_scan(state, grid_scan(state)); }
void BM_ResolveMentionsModel(benchmark::State& state) { time_model_scan(state, grid_scan(state)); }
void BM_ResolveMentionsFloor(benchmark::State& state) { time_floor_scan(state, grid_scan(state)); }

void BM_RosterScan(benchmark::State& state) { time_prepared_scan(state, roster_scan(state)); }
void BM_RosterScanViews(benchmark::State& state) { time_view_scan(state, roster_scan(state)); }
void BM_RosterScanModel(benchmark::State& state) { time_model_scan(state, roster_scan(state)); }
void BM_RosterScanFloor(benchmark::State& state) { time_floor_scan(state, roster_scan(state)); }

// Ten mentions of a roster of 100 in bodies of 4 KiB to 1 MiB (complexity N: body bytes).
void BM_ResolveMentionsBodyScaling(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  time_prepared_scan(state, make_scan(arg(state, 0), 10, 100));
}

// ---- the corpus, against Markdown parsers ----------------------------------------------------

// A message of model/corpus/messages.json: its body, its author, and the snapshots of its
// agents (plus `extra` more) with one desk.
struct CorpusMessage {
  std::string body{};
  thm::MentionAuthor author{};
  Snapshots snapshots{};
  std::optional<thm::Team> team{};
};

std::vector<CorpusMessage> corpus_messages(std::size_t extra) {
  std::ifstream file(THM_CORPUS_FILE);
  const auto document = nlohmann::json::parse(file, nullptr, false);
  std::vector<CorpusMessage> messages;
  if (!document.is_array()) return messages;
  for (const auto& entry : document) {
    CorpusMessage message;
    message.body = entry.at("body").get<std::string>();
    message.author = thm::AgentAuthor{entry.at("author").get<std::string>()};
    for (const auto& agent : entry.at("agents")) {
      message.snapshots.roster.members.push_back({.id = agent.get<std::string>()});
    }
    for (std::size_t i = 0; i < extra; ++i) {
      message.snapshots.roster.members.push_back({.id = "extra_" + std::to_string(i)});
    }
    message.snapshots.desks.declared = {
        {.id = "eng", .name = "Engineering", .members = {entry.at("author").get<std::string>()}}};
    message.team = message.snapshots.prepare();
    messages.push_back(std::move(message));
  }
  return messages;
}

std::size_t resolve_prepared(const CorpusMessage& m) {
  return thm::resolve_mentions(m.body, std::nullopt, m.author, *m.team).size();
}
std::size_t resolve_views(const CorpusMessage& m) {
  return thm::resolve_mentions(m.body, std::nullopt, m.author, thm::Roster(m.snapshots.roster),
                               thm::DeskSet(m.snapshots.desks))
      .size();
}
std::size_t parse_cmark(const CorpusMessage& m) {
  cmark_node* document = cmark_parse_document(m.body.data(), m.body.size(), CMARK_OPT_DEFAULT);
  const bool parsed = document != nullptr;
  cmark_node_free(document);
  return parsed ? 1 : 0;
}
std::size_t parse_md4c(const CorpusMessage& m) {
  static const MD_PARSER parser{
      .abi_version = 0,
      .flags = 0,
      .enter_block = [](MD_BLOCKTYPE, void*, void*) { return 0; },
      .leave_block = [](MD_BLOCKTYPE, void*, void*) { return 0; },
      .enter_span = [](MD_SPANTYPE, void*, void*) { return 0; },
      .leave_span = [](MD_SPANTYPE, void*, void*) { return 0; },
      .text = [](MD_TEXTTYPE, const MD_CHAR*, MD_SIZE, void*) { return 0; },
      .debug_log = nullptr,
      .syntax = nullptr,
  };
  return md_parse(m.body.data(), static_cast<MD_SIZE>(m.body.size()), &parser, nullptr) == 0;
}

using CorpusCall = std::size_t (*)(const CorpusMessage&);

// The least time, in ns, of one call of `call` on `message`: the best of 7 runs of 16 calls.
double best_ns(CorpusCall call, const CorpusMessage& message) {
  double best = 1e300;
  for (int run = 0; run < 7; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 16; ++i) benchmark::DoNotOptimize(call(message));
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / 16);
  }
  return best;
}

// Per message, the prepared path's time over each parser's: the median and the worst
// (largest) ratio, as counters. Timed here, outside Google Benchmark's loop, so that each
// message gets its own figure.
void report_per_message(benchmark::State& state, const std::vector<CorpusMessage>& messages) {
  for (const auto& [parser, call] : {std::pair{"cmark", &parse_cmark}, {"md4c", &parse_md4c}}) {
    std::vector<std::pair<double, std::size_t>> ratios;  // ratio, message index
    for (std::size_t i = 0; i < messages.size(); ++i) {
      ratios.emplace_back(best_ns(&resolve_prepared, messages[i]) / best_ns(call, messages[i]), i);
    }
    std::ranges::sort(ratios);
    state.counters[std::string("median_vs_") + parser] = ratios[ratios.size() / 2].first;
    state.counters[std::string("median_vs_") + parser + "_at"] =
        static_cast<double>(ratios[ratios.size() / 2].second);
    state.counters[std::string("worst_vs_") + parser] = ratios.back().first;
    // Which message that is (its index in model/corpus/messages.json), to profile it.
    state.counters[std::string("worst_vs_") + parser + "_at"] =
        static_cast<double>(ratios.back().second);
  }
}

// Every corpus message once per iteration: one item per message.
void BM_Corpus(benchmark::State& state, CorpusCall call) {
  const std::vector<CorpusMessage> messages = corpus_messages(arg(state, 0));
  if (messages.size() < 100) {
    state.SkipWithError("model/corpus/messages.json holds fewer than 100 messages");
    return;
  }
  if (call == &resolve_prepared) {
    for (const CorpusMessage& message : messages) {
      if (resolve_prepared(message) != resolve_views(message)) {
        state.SkipWithError("the prepared path and the views disagree on a corpus message");
        return;
      }
    }
    report_per_message(state, messages);
  }
  for (auto _ : state) {
    std::size_t found = 0;
    for (const CorpusMessage& message : messages) found += call(message);
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(messages.size()));
}

// One corpus message, by its index, many times: what `report_per_message` names as the worst,
// to profile (`resolve_mentions.corpus_message/thm/message:139` under callgrind).
void BM_CorpusMessage(benchmark::State& state, CorpusCall call) {
  static const std::vector<CorpusMessage> messages = corpus_messages(0);
  const auto index = arg(state, 0);
  if (index >= messages.size()) {
    state.SkipWithError("model/corpus/messages.json has no message of that index");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(call(messages[index]));
  state.SetItemsProcessed(state.iterations());
}

// ---- preparing a team ------------------------------------------------------------------------

std::uint64_t bytes_of(const auto& make) {
  const std::uint64_t before = thm::bench::bytes_allocated_on_this_thread();
  benchmark::DoNotOptimize(make());
  return thm::bench::bytes_allocated_on_this_thread() - before;
}

// Team::prepare on a copy of the snapshots (the copy is inside the timed call, as in
// `copy`), and the heap bytes of the snapshots and of the team's indexes.
void BM_TeamPrepare(benchmark::State& state) {
  const Snapshots snapshots = make_team(arg(state, 0));
  const auto prepare = [&] { return snapshots.prepare(); };
  const std::uint64_t snapshot_bytes = bytes_of([&] { return snapshots; });
  const thm::Team team = prepare();
  state.counters["snapshot_bytes"] = static_cast<double>(snapshot_bytes);
  state.counters["index_bytes"] = static_cast<double>(team.index_bytes());
  state.counters["index_per_snapshot"] =
      static_cast<double>(team.index_bytes()) / static_cast<double>(snapshot_bytes);
  thm::bench::time_calls(state, prepare);
}

void BM_TeamPrepareCopy(benchmark::State& state) {
  const Snapshots snapshots = make_team(arg(state, 0));
  thm::bench::time_calls(state, [&] { return snapshots; });
}

// ---- mention_dispatch ----------------------------------------------------------------------

constexpr std::string_view kDispatchOne = "dispatch_one";
constexpr std::string_view kDispatchShaped = "dispatch_one_shaped";

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

// `input` as the last reply of the chain agent_2 → agent_2 → agent_4 → its author.
thm::MentionDispatchInput chained(thm::MentionDispatchInput input) {
  input.chain = {"agent_2", "agent_2", "agent_4"};
  return input;
}

std::vector<DispatchCase> dispatch_cases() {
  using Reason = thm::NoDispatchReason;
  const thm::MentionDispatchPolicy on{.enabled = true, .max_hops = 3};
  // Every rule of the shape on: no return, two turns an agent, and agent_1 may hand to
  // agent_2, agent_3 and agent_4 (eight pairs listed in all).
  thm::MentionDispatchPolicy shaped{.enabled = true,
                                    .max_hops = 8,
                                    .no_return = true,
                                    .max_turns_per_agent = 2,
                                    .allowed_handoffs = std::vector<thm::Handoff>{}};
  for (const char* from : {"agent_2", "agent_3", "agent_4", "agent_1"}) {
    for (const char* to : {"agent_2", "agent_3"}) shaped.allowed_handoffs->push_back({from, to});
  }
  shaped.allowed_handoffs->push_back({"agent_1", "agent_4"});
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
      // The chain's shape (SPEC §3.2 steps 7 to 9): each rule refusing, then all three on
      // and passing, on a reply at hop 3 of a chain of four.
      {thm::name(Reason::ImmediateReturn), shaped,
       chained(reply("agent_1", agent_mention("agent_4"), 3))},
      {thm::name(Reason::AgentTurnsSpent), shaped,
       chained(reply("agent_1", agent_mention("agent_2"), 3))},
      {thm::name(Reason::HandoffNotAllowed), shaped,
       chained(reply("agent_1", agent_mention("agent_5"), 3))},
      {kDispatchShaped, shaped, chained(reply("agent_1", agent_mention("agent_3"), 3))},
  };
}

// The path a scenario must take: its name, but a shaped dispatch is a dispatch.
std::string_view taken(const DispatchCase& scenario) {
  return scenario.path == kDispatchShaped ? kDispatchOne : scenario.path;
}

template <class Decide>
void time_dispatch(benchmark::State& state, const DispatchCase& scenario, const Decide& decide) {
  const auto decision = decide();
  if (!decision || path_of(*decision) != taken(scenario)) {
    state.SkipWithError("the core took another path");
    return;
  }
  thm::bench::time_calls(state, decide);
}

void BM_MentionDispatch(benchmark::State& state, const DispatchCase& scenario) {
  time_dispatch(state, scenario, [&] {
    return thm::mention_dispatch(scenario.policy, scenario.input, decision_team());
  });
}

// The same call asking for its trace (SPEC §8): what explaining a decision costs.
void BM_MentionDispatchTraced(benchmark::State& state, const DispatchCase& scenario) {
  thm::DecisionTrace trace;
  time_dispatch(state, scenario, [&] {
    trace.clear();
    return thm::mention_dispatch(scenario.policy, scenario.input, decision_team(), trace);
  });
}

void BM_MentionDispatchViews(benchmark::State& state, const DispatchCase& scenario) {
  const thm::Roster roster(decision_snapshots().roster);
  time_dispatch(state, scenario,
                [&] { return thm::mention_dispatch(scenario.policy, scenario.input, roster); });
}

void BM_MentionDispatchModel(benchmark::State& state, const DispatchCase& scenario) {
  const model::Roster roster = to_model(decision_snapshots().roster);
  const model::Policy policy = to_model(scenario.policy);
  const model::DispatchInput input = to_model(scenario.input);
  const auto decide = [&] { return model::mention_dispatch(policy, input, roster); };
  const auto decision = decide();
  if (!decision.value || path_of(to_core(*decision.value)) != taken(scenario)) {
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

// `request` in a thread where `agent` answered last.
thm::ResponderRequest in_thread(thm::ResponderRequest request, std::string agent) {
  request.thread_responder = std::move(agent);
  return request;
}

std::vector<ResponderCase> responder_cases() {
  using Rung = thm::ResponderRung;
  return {
      {thm::name(Rung::ExplicitMention), message_to("eng", {agent_mention("agent_5")})},
      {thm::name(Rung::DeskDefault), message_to("eng")},
      {kDeskSelect, message_to("research")},
      {thm::name(Rung::DirectAgent), message_to("dm:agent_3")},
      {thm::name(Rung::Orchestrator), message_to(std::nullopt)},
      {thm::name(Rung::ThreadResponder), in_thread(message_to("eng"), "agent_6")},
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

template <class Plan>
void time_plan(benchmark::State& state, const ResponderCase& scenario, const Plan& plan) {
  const auto first = plan();
  if (!first || path_of(*first) != scenario.path) {
    state.SkipWithError("the core took another rung");
    return;
  }
  thm::bench::time_calls(state, plan);
}

void BM_ResponderPlan(benchmark::State& state, const ResponderCase& scenario) {
  time_plan(state, scenario, [&] {
    return thm::responder_plan(scenario.request, decision_team(), selector_details());
  });
}

// The same call asking for its trace (SPEC §8).
void BM_ResponderPlanTraced(benchmark::State& state, const ResponderCase& scenario) {
  thm::DecisionTrace trace;
  time_plan(state, scenario, [&] {
    trace.clear();
    return thm::responder_plan(scenario.request, decision_team(), selector_details(), trace);
  });
}

void BM_ResponderPlanViews(benchmark::State& state, const ResponderCase& scenario) {
  const thm::Roster roster(decision_snapshots().roster);
  const thm::DeskSet desks(decision_snapshots().desks);
  time_plan(state, scenario, [&] {
    return thm::responder_plan(scenario.request, roster, desks, selector_details());
  });
}

void BM_ResponderPlanModel(benchmark::State& state, const ResponderCase& scenario) {
  const model::Roster roster = to_model(decision_snapshots().roster);
  const model::Desks desks = to_model(decision_snapshots().desks);
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

// The candidate counts: 2, 8 and 64.
void candidate_counts(benchmark::internal::Benchmark* bench) {
  bench->Arg(2)->Arg(8)->Arg(64)->ArgName("candidates");
}

// ---- registration --------------------------------------------------------------------------

// The corpus, whole and one message at a time, against the parsers.
void register_corpus_benchmarks() {
  using benchmark::kMicrosecond;
  using benchmark::RegisterBenchmark;
  for (const auto& [impl, call] : {std::pair{"thm", &resolve_prepared},
                                   {"views", &resolve_views},
                                   {"cmark", &parse_cmark},
                                   {"md4c", &parse_md4c}}) {
    RegisterBenchmark((std::string("resolve_mentions.corpus/") + impl).c_str(), BM_Corpus, call)
        ->Arg(0)
        ->Arg(1000)
        ->ArgName("extra_agents")
        ->Unit(kMicrosecond);
  }
  // The worst message against md4c in the runs of bench/results, and one at the median.
  for (const auto& [impl, call] : {std::pair{"thm", &resolve_prepared}, {"md4c", &parse_md4c}}) {
    RegisterBenchmark((std::string("resolve_mentions.corpus_message/") + impl).c_str(),
                      BM_CorpusMessage, call)
        ->Arg(139)
        ->Arg(77)
        ->ArgName("message")
        ->Unit(kMicrosecond);
  }
}

// Names are `<operation>[.<case>]/<impl>` then Google Benchmark's argument suffixes, with
// `impl` one of thm, model, floor; a baseline's suffixes equal its thm benchmark's.
void register_benchmarks() {
  using benchmark::kMicrosecond;
  using benchmark::RegisterBenchmark;

  // The model stops at 1 000 agents: past that one call takes 0.3 s (3 s unoptimized, in
  // the smoke run), and what it shows, time linear in the roster, is shown by then.
  constexpr std::int64_t kModelRoster = 1000;
  constexpr std::int64_t kRoster = 10000;
  for (const auto& [impl, run, largest] : {std::tuple{"thm", &BM_ResolveMentions, kRoster},
                                           {"views", &BM_ResolveMentionsViews, kRoster},
                                           {"floor", &BM_ResolveMentionsFloor, kRoster},
                                           {"model", &BM_ResolveMentionsModel, kModelRoster}}) {
    auto* bench = RegisterBenchmark((std::string("resolve_mentions/") + impl).c_str(), run);
    resolve_mentions_grid(bench, largest);
    bench->Unit(kMicrosecond);
  }
  for (const auto& [impl, run, largest] : {std::tuple{"thm", &BM_RosterScan, kRoster},
                                           {"views", &BM_RosterScanViews, kRoster},
                                           {"floor", &BM_RosterScanFloor, kRoster},
                                           {"model", &BM_RosterScanModel, kModelRoster}}) {
    auto* bench = RegisterBenchmark((std::string("resolve_mentions.roster/") + impl).c_str(), run);
    for (const std::int64_t roster : {10, 30, 100, 300, 1000, 3000, 10000}) {
      if (roster <= largest) bench->Arg(roster);
    }
    bench->ArgName("roster")->Unit(kMicrosecond);
  }
  RegisterBenchmark("resolve_mentions.body_scaling/thm", BM_ResolveMentionsBodyScaling)
      ->RangeMultiplier(2)
      ->Range(1 << 12, 1 << 20)
      ->ArgName("body")
      ->Complexity(benchmark::oN)
      ->Unit(kMicrosecond);
  register_corpus_benchmarks();
  RegisterBenchmark("team_prepare/thm", BM_TeamPrepare)
      ->Arg(10)
      ->Arg(1000)
      ->Arg(10000)
      ->ArgName("roster")
      ->Unit(kMicrosecond);
  RegisterBenchmark("team_prepare/copy", BM_TeamPrepareCopy)
      ->Arg(10)
      ->Arg(1000)
      ->Arg(10000)
      ->ArgName("roster")
      ->Unit(kMicrosecond);

  for (const DispatchCase& scenario : dispatch_cases()) {
    const std::string operation = "mention_dispatch." + std::string(scenario.path);
    RegisterBenchmark((operation + "/thm").c_str(), BM_MentionDispatch, scenario);
    RegisterBenchmark((operation + "/traced").c_str(), BM_MentionDispatchTraced, scenario);
    RegisterBenchmark((operation + "/views").c_str(), BM_MentionDispatchViews, scenario);
    RegisterBenchmark((operation + "/model").c_str(), BM_MentionDispatchModel, scenario);
  }
  for (const ResponderCase& scenario : responder_cases()) {
    const std::string operation = "responder_plan." + std::string(scenario.path);
    RegisterBenchmark((operation + "/thm").c_str(), BM_ResponderPlan, scenario);
    RegisterBenchmark((operation + "/traced").c_str(), BM_ResponderPlanTraced, scenario);
    RegisterBenchmark((operation + "/views").c_str(), BM_ResponderPlanViews, scenario);
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
