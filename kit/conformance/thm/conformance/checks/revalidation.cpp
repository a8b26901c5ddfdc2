// The checks of queue-conformance.md §6, part C. revalidating the stored trigger and the policy
// (EQ-11…EQ-13). Each is a plain function over a `Run`; checks.cpp lists them and runs them.
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

void eq11_mismatch_matrix(Run& run) {
  run.fresh();
  const auto base = run.trigger(10);
  const auto next_reply = run.trigger(11, kDesk, "@carol something else entirely");
  const auto in_thread = run.trigger(20, DispatchConversation{.desk_id = "eng", .thread_root = 99});
  (void)next_reply;
  struct Row {
    std::string what;
    MentionTurnRequest request;
  };
  const auto with = [&](std::string what, const std::function<void(MentionTurnRequest&)>& change) {
    MentionTurnRequest request = base;
    change(request);
    return Row{std::move(what), std::move(request)};
  };
  const std::vector<Row> same_key{
      with("content differs", [](auto& r) { r.content += "!"; }),
      with("source differs", [](auto& r) { r.source_id = "carol"; }),
      with("child hop not derived from the stored reply", [](auto& r) { r.child_hop = 7; }),
  };
  const std::vector<Row> other_key{
      with("no stored reply", [](auto& r) { r.key.trigger_sequence = 30; }),
      with("sequence belongs to another conversation",
           [&](auto& r) {
             r.key = in_thread.key;
             r.content = in_thread.content;
           }),
      with("sequence off by one", [](auto& r) { r.key.trigger_sequence = 11; }),
      with("sequence newer than the stored head", [](auto& r) { r.key.trigger_sequence = 12; }),
  };
  const auto expect_mismatch = [&](const Row& row, const std::string& when) {
    const auto records = run.harness.records().size();
    const auto children = run.harness.children().size();
    const auto answer = run.enqueue(row.request);
    run.require(!answer, row.what + when + ": got " + describe(answer) + ", not an error");
    const auto kind = answer.error().kind;
    run.require(kind == QueueErrorKind::TriggerMismatch || kind == QueueErrorKind::TriggerMissing,
                row.what + when + ": the error is " + std::string(name(kind)) +
                    ", not trigger_mismatch or trigger_missing");
    run.require(
        run.harness.records().size() == records && run.harness.children().size() == children,
        row.what + when + ": the store changed");
  };
  for (const auto& row : same_key) expect_mismatch(row, "");
  for (const auto& row : other_key) expect_mismatch(row, "");
  const auto admitted = run.enqueue(base);
  run.require(is_enqueued(admitted), "the matching request got " + describe(admitted));
  for (const auto& row : same_key) expect_mismatch(row, " (the key already has a record)");
  const auto admitted_children = run.children_of(base);
  run.require(admitted_children.size() == 1, "the matching request left no single child");
  run.require(admitted_children[0].request == base,
              "the child was not built from the stored reply");
}

namespace {

// Pauses a caller at `point`, runs `change` on another thread and waits up to
// `options.wait` for it to land, then releases the caller. Returns the caller's answer and
// whether the change landed while the caller was paused. A harness exception from `change`
// fails the check.
std::pair<Answer, bool> change_while_paused(Run& run, const MentionTurnRequest& request,
                                            HookPoint point, const std::function<void()>& change) {
  auto session = run.harness.open_session();
  auto gate = run.gate(point);
  std::optional<Call> caller;
  std::optional<Background> changer;
  ReleaseOnExit release{gate};
  caller.emplace(*session, request);
  run.require(gate->wait_reached(), "the caller never reached " + std::string(name(point)));
  changer.emplace(change);
  run.step("waiting for a change on another session while a caller is paused at " +
           std::string(name(point)));
  const bool landed = changer->done_within(run.options.wait);
  gate->release();
  run.step("waiting for the released caller, and for the change, to finish");
  Answer answer = caller->answer();
  changer->finish();
  run.tally(request, answer);
  return {std::move(answer), landed};
}

}  // namespace

void eq12_policy_inside_the_transaction(Run& run) {
  if (run.capabilities.hooks) {
    std::size_t waited = 0;
    for (const auto& control : policy_controls(run)) {
      run.fresh();
      const auto request = run.trigger(1);
      const auto [answer, revoked_while_paused] =
          change_while_paused(run, request, HookPoint::AfterBegin, [&] { control.set(false); });
      if (revoked_while_paused) {
        run.require(is(answer, Refused{control.refusal}),
                    "revoked (" + std::string(name(control.refusal)) +
                        ") after begin, the step still got " + describe(answer));
      } else {
        ++waited;  // the host serialised the change after the step: nothing to judge here
      }
    }
    if (waited != 0) {
      run.note(std::to_string(waited) +
               " of 3 revocations waited for the open step, so the paused half could not show a "
               "check-then-use gap for them; the race below still ran");
    }
  } else {
    run.note(
        "no step was paused while the policy changed: the harness has no `hooks`; only the "
        "race below ran");
  }
  // The race: enqueuers on distinct keys while the feature is switched off. A call that
  // starts after the switch-off returned must not get Enqueued, and some must be refused.
  run.fresh();
  const std::size_t callers = run.racers(8, "the race of 8 enqueuers");
  const std::size_t per_caller = run.options.short_mode ? 10 : 40;
  std::vector<std::vector<MentionTurnRequest>> requests(callers);
  Sequence sequence = 0;
  for (auto& list : requests) {
    for (std::size_t i = 0; i < per_caller; ++i) list.push_back(run.trigger(++sequence));
  }
  std::atomic<std::uint64_t> clock{0};
  std::atomic<std::uint64_t> revoked_at{std::numeric_limits<std::uint64_t>::max()};
  struct Stamped {
    std::uint64_t started;
    Answer answer;
  };
  std::vector<std::vector<Stamped>> stamped(callers);
  std::vector<std::unique_ptr<Session>> sessions;
  for (std::size_t c = 0; c < callers; ++c) sessions.push_back(run.harness.open_session());
  run.step("waiting for " + std::to_string(callers) +
           " callers enqueueing while the feature is switched off (Harness::set_policy)");
  {
    std::vector<std::jthread> threads;
    for (std::size_t c = 0; c < callers; ++c) {
      threads.emplace_back([&, c] {
        for (const auto& request : requests[c]) {
          const std::uint64_t started = clock.fetch_add(1);
          stamped[c].push_back({started, call(*sessions[c], request)});
        }
      });
    }
    while (clock.load() < callers * per_caller / 3) std::this_thread::yield();
    Background revoke([&] { run.harness.set_policy({.enabled = false, .max_hops = 1000}); });
    revoke.finish();
    revoked_at = clock.fetch_add(1);
  }
  std::size_t refused = 0;
  for (std::size_t c = 0; c < callers; ++c) {
    for (std::size_t i = 0; i < stamped[c].size(); ++i) {
      run.tally(requests[c][i], stamped[c][i].answer);
      refused += is(stamped[c][i].answer, Refused{EnqueueRefusal::FeatureDisabled}) ? 1 : 0;
      run.require(!(is_enqueued(stamped[c][i].answer) && stamped[c][i].started > revoked_at),
                  "a call that started after the feature was switched off got Enqueued");
    }
  }
  const bool calls_after_revocation = clock.load() > revoked_at + 1;
  run.require(refused > 0 || !calls_after_revocation,
              "calls started after the feature was switched off, yet none was refused");
}

void eq13_stored_reply_edited_concurrently(Run& run) {
  run.need_hooks();
  if (!run.capabilities.row_locking) {
    throw Skipped{
        "needs capability `row_locking` (reads of the stored reply held until commit, or "
        "serialised writers)"};
  }
  run.fresh();
  const auto request = run.trigger(1);
  const auto [answer, edited_while_paused] =
      change_while_paused(run, request, HookPoint::AfterValidateReads, [&] {
        run.harness.commit_reply({.conversation = request.conversation,
                                  .sequence = request.key.trigger_sequence,
                                  .author_id = request.source_id,
                                  .content = request.content + " (edited)",
                                  .hop = 0});
      });
  if (edited_while_paused) {
    run.require(!is_enqueued(answer),
                "the stored reply was edited while the step was open, yet the child was built from "
                "the old content");
  } else {
    // The edit waited for the step (locking) or landed just before its commit (a host that
    // validates at commit fails the step): either is serialisable.
    run.require(is_enqueued(answer) || !answer,
                "the step that the edit raced got " + describe(answer));
  }
  run.require(!answer || !is_enqueued(answer) || run.children_of(request).size() == 1,
              "an admitted step left no single child");
}

}  // namespace thm::conformance::checking
