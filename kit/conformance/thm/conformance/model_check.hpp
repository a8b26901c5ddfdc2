#pragma once
/// \file
/// EQ-25's body (queue-conformance.md §6): random command sequences run against the harness
/// and against the model host queue (`thm::model::TurnQueue`), with RapidCheck generating and
/// shrinking them. Internal to the suite; hosts call it through `run_check("EQ-25", ...)`.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::detail {

/// What EQ-25 found: the counts over every enqueue it made, and a failure (the shrunk
/// counterexample, command by command) or a skip reason, or neither on a pass; `note` says
/// what the run could not cover with this harness.
struct ModelCheckOutcome {
  Counts counts{};
  std::optional<std::string> failed{};
  std::optional<std::string> skipped{};
  std::string note{};
};

/// One `enqueue_once` on `session`, with a harness exception turned into an `Internal` error
/// answer; each answer counts as progress for the running check's watchdog (Options::stall).
[[nodiscard]] Result<EnqueueOutcome, QueueError> call(Session& session,
                                                      const MentionTurnRequest& request);

/// Runs `body(i)` for each i in [0, n), each on a thread of its own, all released together
/// by a spin barrier (also when starting a thread throws); `meanwhile`, if set, runs once
/// they are released and before they are joined.
void together(std::size_t n, const std::function<void(std::size_t)>& body,
              const std::function<void()>& meanwhile = {});

/// Tells the running check's watchdog that the check made progress (a step that is not an
/// enqueue: a claim, a harness write).
void made_progress() noexcept;

/// Runs EQ-25 against `harness`: `4 × options.repeat` sequential command sequences, then
/// `options.repeat` parallel ones (a sequential prefix, then 2–4 branches of enqueues, each on
/// its own session and thread behind a barrier, checked per key for an interleaving the model
/// accepts). `short_mode` shortens both. The RapidCheck seed is `options.seed`.
[[nodiscard]] ModelCheckOutcome check_against_model(Harness& harness, const Options& options);

}  // namespace thm::conformance::detail
