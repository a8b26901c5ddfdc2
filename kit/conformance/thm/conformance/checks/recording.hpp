#pragma once
/// \file
/// The history a failing check's report shows (internal to the suite, adr/0020): `run_check`
/// puts a `Recording` between the check and the harness under test. It forwards every
/// member unchanged and notes, as `HistoryEvent`s, each call its sessions make, each pause
/// in the check's hook, and each of the host's own writes, so that no check records
/// anything itself.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "thm/conformance/checks/linearizable_history.hpp"
#include "thm/conformance/harness.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::checking {

// The events of one check run since its last reset: the last `kHistoryLimit` kept, the
// sessions' calls in flight (to tell which session a hook call belongs to), and the clock.
// Shared by the harness, its sessions and the hook it installs; every member is thread-safe.
class History {
 public:
  History();

  // Microseconds since the last `restart`.
  [[nodiscard]] std::uint64_t now_us() const;
  // Forgets every event and session: the store was reset.
  void restart();
  // The next session's lane.
  [[nodiscard]] std::uint32_t open_lane();
  void add(HistoryEvent event);

  // `lane` is calling with `request`, until `finish_call`.
  void start_call(std::uint32_t lane, const MentionTurnRequest& request);
  void finish_call(std::uint32_t lane);
  // The lane a hook call for `request` comes from: this thread's call, or else the one call
  // in flight with the same key; none when the suite cannot tell.
  [[nodiscard]] std::optional<std::uint32_t> lane_of(const MentionTurnRequest& request) const;

  // The events kept, in the order they began, and how many did not fit.
  [[nodiscard]] std::vector<HistoryEvent> events() const;
  [[nodiscard]] std::uint64_t dropped() const;
  // How many events were added since the last `restart`, kept or not.
  [[nodiscard]] std::uint64_t added() const;

  // The key of the lease `token` was issued for since the last `restart` (empty if none).
  void issued(const std::string& token, const std::string& key);
  [[nodiscard]] std::string key_of(const std::string& token) const;
  // Every event the linearizability checker reads (each call with an operation, each read
  // of the store's clock) since the last `restart` or `take_stretch`, in the order they were
  // added, and forgets them; nothing when there were more than `kStretchLimit`, and
  // `overflowed` is set.
  [[nodiscard]] std::vector<HistoryEvent> take_stretch(bool& overflowed);

 private:
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point since_;
  std::uint32_t lanes_ = 0;
  std::vector<HistoryEvent> ring_;  // at most kHistoryLimit; `next_` is the oldest when full
  std::size_t next_ = 0;
  std::uint64_t dropped_ = 0;
  std::map<std::uint32_t, std::string> in_flight_;  // lane -> the request's encoded key
  std::map<std::string, std::string> token_keys_;   // lease token -> its child's key
  std::vector<HistoryEvent> stretch_;
  bool stretch_overflowed_ = false;
};

// The most events a stretch between two resets keeps for the linearizability checker.
inline constexpr std::size_t kStretchLimit = std::size_t{1} << 18;

class RecordedDurability;
class RecordedNodes;
class RecordedClocks;

// `harness` as the check sees it: every member and facet forwarded, and what happens noted
// in `history()`.
class Recording final : public Harness {
 public:
  explicit Recording(Harness& harness);
  ~Recording() override;
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  [[nodiscard]] const History& history() const { return *history_; }
  // Judges the calls since the last reset, as `reset` does before it resets; then the first
  // violation any stretch of this run showed, if one did.
  [[nodiscard]] const std::optional<Violation>& violation();
  // What the checker could not judge in this run, for a passing report's reason; empty when
  // it judged every key of every stretch. Call after `violation`.
  [[nodiscard]] std::string unjudged() const;

  [[nodiscard]] std::string queue_name() const override;
  [[nodiscard]] Capabilities capabilities() const override;
  void reset() override;
  [[nodiscard]] std::unique_ptr<Session> open_session() override;
  void commit_reply(const CommittedReply& reply) override;
  void set_policy(MentionDispatchPolicy policy) override;
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override;
  void set_available(const std::string& agent_id, bool available) override;
  void set_hook(TransactionHook hook) override;
  void settle(std::uint64_t child_id, Settlement how) override;
  void run_maintenance() override;
  [[nodiscard]] std::unique_ptr<Hold> hold_child(std::uint64_t child_id) override;
  [[nodiscard]] std::vector<IdempotencyRecord> records() override;
  [[nodiscard]] std::vector<ChildTurn> children() override;
  [[nodiscard]] std::optional<UniqueIndex> unique_key_index() override;
  [[nodiscard]] Durability* durability() override;
  [[nodiscard]] NodeFaults* nodes() override;
  [[nodiscard]] Clocks* clocks() override;

 private:
  // `hook`, noting each pause it makes and each step it fails.
  TransactionHook wrapped(TransactionHook hook);

  // Runs the linearizability checker over the stretch since the last reset.
  void judge_stretch();
  // The key of child `child_id`, read from the inspector; empty when it cannot tell.
  std::string key_of_child(std::uint64_t child_id);

  Harness& inner_;
  std::shared_ptr<History> history_;
  std::optional<Violation> violation_;
  std::size_t unjudged_keys_ = 0;
  std::size_t overflowed_stretches_ = 0;
  // Each facet of the harness under test, recorded; made when a check first asks for it.
  std::unique_ptr<RecordedDurability> durability_;
  Durability* durability_inner_ = nullptr;
  std::unique_ptr<RecordedNodes> nodes_;
  NodeFaults* nodes_inner_ = nullptr;
  std::unique_ptr<RecordedClocks> clocks_;
  Clocks* clocks_inner_ = nullptr;
};

// A request as people read it in a timeline: `alice -> bob, eng, seq 3` (long ids cut).
[[nodiscard]] std::string describe_request(const MentionTurnRequest& request);

}  // namespace thm::conformance::checking
