// The checks of queue-conformance.md §6, part F. durability, capabilities and the model
// (EQ-23…EQ-25). Each is a plain function over a `Run`; checks.cpp lists them and runs them.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "thm/conformance/checks/bodies.hpp"
#include "thm/conformance/checks/run.hpp"
#include "thm/conformance/model_check.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::checking {

void eq23_crash_and_restart(Run& run) {
  if (!run.capabilities.persistent) {
    throw Skipped{
        "the store is not persistent (capability `persistent`): nothing in it is meant "
        "to survive the host process"};
  }
  run.fresh();
  const auto acknowledged = run.trigger(1);
  run.step("a host process killed after its answer, then the store restarted and reopened");
  const auto answer = run.durability().enqueue_then_kill(acknowledged, KillPoint::AfterAnswer);
  run.require(answer.has_value(), "the process killed after answering reported no answer");
  run.tally(acknowledged, *answer);
  run.require(is_enqueued(*answer), "the killed process's enqueue got " + describe(*answer));
  run.require(run.children_of(acknowledged).size() == 1,
              "the acknowledged child is gone after the kill and restart");
  run.require(run.harness.records().size() == 1,
              "the acknowledged idempotency record is gone after the kill and restart");
  const auto replay = run.enqueue(acknowledged);
  run.require(is_already(replay), "after the restart a re-enqueue got " + describe(replay));

  const auto interrupted = run.trigger(2);
  run.forget_session();  // the next kill may restart the server under it
  std::optional<Answer> none;
  try {
    run.step("a host process killed inside its transaction, then the store reopened");
    none = run.durability().enqueue_then_kill(interrupted, KillPoint::InsideTransaction);
  } catch (const Unsupported&) {
    run.note(
        "the harness cannot kill a process inside its transaction, so a half-written "
        "step after a crash was not tested");
    return;
  }
  run.require(!none.has_value(), "the process killed inside its transaction reported an answer");
  run.require(run.children_of(interrupted).empty(),
              "a child exists for an enqueue killed inside its transaction");
  run.require(run.harness.records().size() == 1,
              "an idempotency record exists for an enqueue killed inside its transaction");
  const auto retry = run.enqueue(interrupted);
  run.require(is_enqueued(retry), "the retry after the kill got " + describe(retry));
}

namespace {

// Runs `operation`, which must throw `Unsupported` because `capability` is not declared.
void require_unsupported(Run& run, const std::string& operation, const std::string& capability,
                         const std::function<void()>& attempt) {
  try {
    attempt();
  } catch (const Unsupported&) {
    return;
  } catch (const std::exception& e) {
    run.require(false, operation + " threw \"" + e.what() + "\" instead of Unsupported, with `" +
                           capability + "` not declared");
  }
  run.require(false, operation + " worked although `" + capability +
                         "` is not declared: declare it, or make it throw Unsupported");
}

// EQ-24's parts, one per capability: each declared capability does what it says; each
// undeclared one reports `Unsupported` rather than silently doing nothing.

// Declarations that make no sense together.
void declarations_agree(Run& run) {
  const Capabilities& caps = run.capabilities;
  // Capabilities that qualify leases prove nothing without them: EQ-14, 15 and 27 would be
  // skipped for want of `leases`, and the declaration would read as proven.
  for (const auto& [declared, qualifier] :
       {std::pair{caps.skewable_client_clock, "skewable_client_clock"},
        std::pair{caps.hold_child, "hold_child"}}) {
    run.require(!declared || caps.leases, "`" + std::string(qualifier) +
                                              "` is declared without `leases`, the checks of "
                                              "which it qualifies");
  }
  if (caps.max_sessions) {
    run.require(*caps.max_sessions >= 2,
                "`max_sessions` is " + std::to_string(*caps.max_sessions) +
                    ": a queue is called from many threads at once, and the suite needs two "
                    "sessions at a time at the least");
  }
}

// `hooks`: the hook is called at the six points, in order; or set_hook refuses.
void hooks_match(Run& run, const MentionTurnRequest& request) {
  const Capabilities& caps = run.capabilities;
  if (caps.hooks) {
    auto seen = std::make_shared<std::vector<HookPoint>>();
    auto mutex = std::make_shared<std::mutex>();
    run.harness.set_hook([seen, mutex](HookPoint at, const MentionTurnRequest&) {
      const std::scoped_lock lock(*mutex);
      seen->push_back(at);
      return true;
    });
    const auto answer = run.enqueue(request);
    run.harness.set_hook({});
    run.require(is_enqueued(answer), "the hooked enqueue got " + describe(answer));
    const std::vector<HookPoint> every(kAllHookPoints.begin(), kAllHookPoints.end());
    run.require(*seen == every,
                "with `hooks` declared, an enqueue did not call the hook once at "
                "each of the six points, in order");
  } else {
    require_unsupported(run, "set_hook", "hooks",
                        [&] { run.harness.set_hook([](HookPoint, const auto&) { return true; }); });
    run.require(is_enqueued(run.enqueue(request)), "the enqueue after set_hook failed");
  }
}

// `leases`: a claim takes the child just enqueued; or every lease operation refuses.
void leases_match(Run& run) {
  const Capabilities& caps = run.capabilities;
  if (caps.leases) {
    (void)run.clocks().store_now();
    const auto claimed = run.session().claim(30s);
    run.require(claimed && claimed->has_value(), "with `leases` declared, a claim took nothing");
  } else {
    require_unsupported(run, "store_now", "leases", [&] { (void)run.clocks().store_now(); });
    require_unsupported(run, "claim", "leases", [&] { (void)run.session().claim(30s); });
    require_unsupported(run, "renew", "leases", [&] { (void)run.session().renew("1.1", 30s); });
    require_unsupported(run, "complete", "leases", [&] { (void)run.session().complete("1.1"); });
    require_unsupported(run, "fail", "leases", [&] { (void)run.session().fail("1.1"); });
  }
}

// `hold_child`: a child can be held; or hold_child refuses.
void hold_child_matches(Run& run) {
  const Capabilities& caps = run.capabilities;
  if (caps.hold_child) {
    run.fresh();
    run.require(is_enqueued(run.enqueue(run.trigger(1))), "setting up a child to hold failed");
    (void)run.harness.hold_child(run.harness.children().at(0).id);  // held, then released
  } else {
    require_unsupported(run, "hold_child", "hold_child", [&] { (void)run.harness.hold_child(1); });
  }
}

// `nodes`: the cluster has two nodes or more and a leader; or every node operation refuses.
void nodes_match(Run& run) {
  const Capabilities& caps = run.capabilities;
  if (caps.nodes) {
    const std::size_t count = run.nodes().node_count();
    run.require(count >= 2, "with `nodes` declared, node_count() is " + std::to_string(count) +
                                ": a cluster has two nodes at the least");
    const std::size_t leader = run.nodes().leader();
    run.require(leader < count, "with `nodes` declared, leader() named node " +
                                    std::to_string(leader) + " of " + std::to_string(count));
    run.nodes().recover();  // a healthy cluster: returns at once
  } else {
    run.require(!caps.election_timeout,
                "`election_timeout` is declared without `nodes`, the checks of which it times");
    require_unsupported(run, "node_count", "nodes", [&] { (void)run.nodes().node_count(); });
    require_unsupported(run, "leader", "nodes", [&] { (void)run.nodes().leader(); });
    require_unsupported(run, "kill_node", "nodes", [&] { run.nodes().kill_node(0); });
    require_unsupported(run, "restart_node", "nodes", [&] { run.nodes().restart_node(0); });
    require_unsupported(run, "pause_node", "nodes", [&] { run.nodes().pause_node(0); });
    require_unsupported(run, "resume_node", "nodes", [&] { run.nodes().resume_node(0); });
    require_unsupported(run, "recover", "nodes", [&] { run.nodes().recover(); });
  }
}

// `injected_store_clock`: moving the store clock moves store_now exactly; or it refuses.
void store_clock_matches(Run& run) {
  const Capabilities& caps = run.capabilities;
  if (caps.injected_store_clock) {
    run.require(caps.leases,
                "`injected_store_clock` is declared without `leases`, whose "
                "`store_now` it needs");
    const StoreTime before = run.clocks().store_now();
    run.clocks().advance_store_clock(90s);
    run.require(run.clocks().store_now() == before + 90s,
                "with `injected_store_clock` declared, advancing it by 90 s did not move "
                "store_now by exactly 90 s");
  } else {
    require_unsupported(run, "advance_store_clock", "injected_store_clock",
                        [&] { run.clocks().advance_store_clock(90s); });
  }
}

// `persistent`: a child survives reopening the store; or reopen and the kill refuse.
void persistence_matches(Run& run, const MentionTurnRequest& request) {
  const Capabilities& caps = run.capabilities;
  if (caps.persistent) {
    run.forget_session();
    run.durability().reopen();
    run.require(run.children_of(request).size() == 1,
                "with `persistent` declared, a child is gone after reopening the store");
  } else {
    run.forget_session();
    require_unsupported(run, "reopen", "persistent", [&] { run.durability().reopen(); });
    require_unsupported(run, "enqueue_then_kill", "persistent", [&] {
      (void)run.durability().enqueue_then_kill(request, KillPoint::AfterAnswer);
    });
  }
}

// `sql_schema`: the unique index can be read; or no index is reported.
void sql_schema_matches(Run& run) {
  const Capabilities& caps = run.capabilities;
  if (caps.sql_schema) {
    // Declared, the inspection must work; what it finds (even no index) is EQ-04's to judge.
    try {
      (void)run.harness.unique_key_index();
    } catch (const Unsupported&) {
      run.require(false, "`sql_schema` is declared, but unique_key_index is unsupported");
    }
  } else {
    std::optional<UniqueIndex> index;
    try {
      index = run.harness.unique_key_index();
    } catch (const Unsupported&) {
    }
    run.require(!index.has_value(),
                "unique_key_index reports an index although `sql_schema` is not declared");
  }
}

}  // namespace

// Each declared capability does what it says; each undeclared one reports `Unsupported`
// rather than silently doing nothing (Dapr's two-way rule).
void eq24_capabilities_match_behaviour(Run& run) {
  declarations_agree(run);
  run.fresh();
  const auto request = run.trigger(1);
  hooks_match(run, request);
  leases_match(run);
  hold_child_matches(run);
  nodes_match(run);
  store_clock_matches(run);
  persistence_matches(run, request);
  sql_schema_matches(run);
}

void eq25_model_based(Run& run) {
  run.step("running random command sequences against the harness and the model");
  auto outcome = detail::check_against_model(run.harness, run.options);
  run.counts = outcome.counts;
  if (outcome.skipped) throw Skipped{*outcome.skipped};
  if (outcome.failed) throw Failed{*outcome.failed};
  if (!outcome.note.empty()) run.note(std::move(outcome.note));
}

}  // namespace thm::conformance::checking
