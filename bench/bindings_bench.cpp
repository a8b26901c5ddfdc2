// The C++ side of the language packages' bench (bindings_bench.py): the calls a Python or
// Node.js host makes, on the same inputs (bindings_fixture.json), timed here in C++ so the
// script can report the package's cost as a ratio to the core's own.
//
// resolve_mentions/cpp, mention_dispatch/cpp: one call each, the Roster and DeskSet views
// built inside the loop as the packages build them on every call. resolve_mentions_team/cpp,
// mention_dispatch_team/cpp: the same calls on a team prepared once (adr/0016), as a host
// that prepares once per roster change makes them.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "thm/core.hpp"
#include "thm/json/json.hpp"

namespace {

struct Fixture {
  std::string body;
  thm::MentionAuthor author;
  thm::RosterSnapshot roster;
  thm::DeskSnapshot desks;
  thm::MentionDispatchPolicy policy;
  thm::MentionDispatchInput input;
  thm::RosterSnapshot dispatch_roster;
};

template <class T>
T decode(const thm::json::Value& value) {
  auto decoded = thm::json::from_value<T>(value);
  if (!decoded) throw std::runtime_error("bindings_fixture.json: " + decoded.error().reason);
  return *std::move(decoded);
}

// bindings_fixture.json, from $THM_BINDINGS_FIXTURE or the source tree.
const Fixture& fixture() {
  static const Fixture loaded = [] {
    const char* path = std::getenv("THM_BINDINGS_FIXTURE");
    std::ifstream file(path != nullptr ? path : THM_BINDINGS_FIXTURE);
    std::stringstream text;
    text << file.rdbuf();
    const auto document = thm::json::parse(text.str());
    if (!document) throw std::runtime_error("bindings_fixture.json: " + document.error().reason);
    const auto& resolve = (*document)["resolve_mentions"];
    const auto& dispatch = (*document)["mention_dispatch"];
    return Fixture{.body = resolve["body"].get<std::string>(),
                   .author = decode<thm::MentionAuthor>(resolve["author"]),
                   .roster = decode<thm::RosterSnapshot>(resolve["roster"]),
                   .desks = decode<thm::DeskSnapshot>(resolve["desks"]),
                   .policy = decode<thm::MentionDispatchPolicy>(dispatch["policy"]),
                   .input = decode<thm::MentionDispatchInput>(dispatch["input"]),
                   .dispatch_roster = decode<thm::RosterSnapshot>(dispatch["roster"])};
  }();
  return loaded;
}

void resolve_mentions_cpp(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) {
    benchmark::DoNotOptimize(thm::resolve_mentions(f.body, std::nullopt, f.author,
                                                   thm::Roster(f.roster), thm::DeskSet(f.desks)));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(resolve_mentions_cpp)->Name("resolve_mentions/cpp");

void mention_dispatch_cpp(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) {
    benchmark::DoNotOptimize(thm::mention_dispatch(f.policy, f.input, thm::Roster(f.roster)));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(mention_dispatch_cpp)->Name("mention_dispatch/cpp");

// The fixture's teams, prepared once.
const thm::Team& resolve_team() {
  static const thm::Team team = *thm::Team::prepare(fixture().roster, fixture().desks);
  return team;
}
const thm::Team& dispatch_team() {
  static const thm::Team team = *thm::Team::prepare(fixture().dispatch_roster, {});
  return team;
}

void resolve_mentions_team_cpp(benchmark::State& state) {
  const Fixture& f = fixture();
  const thm::Team& team = resolve_team();
  for (auto _ : state) {
    benchmark::DoNotOptimize(thm::resolve_mentions(f.body, std::nullopt, f.author, team));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(resolve_mentions_team_cpp)->Name("resolve_mentions_team/cpp");

void mention_dispatch_team_cpp(benchmark::State& state) {
  const Fixture& f = fixture();
  const thm::Team& team = dispatch_team();
  for (auto _ : state) benchmark::DoNotOptimize(thm::mention_dispatch(f.policy, f.input, team));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(mention_dispatch_team_cpp)->Name("mention_dispatch_team/cpp");

}  // namespace

BENCHMARK_MAIN();
