#pragma once
/// \file
/// `thm::sqlite::SqliteHarness`: the conformance harness over `SqliteQueue`. Every session
/// is its own connection to one database file; the host's writes and the inspector use one
/// more. EQ-23 runs an enqueue in a forked child process and kills it with SIGKILL.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/store_harness.hpp"
#include "thm/sqlite/sqlite_queue.hpp"

namespace thm::sqlite {

/// Capabilities: hooks, row locking (`BEGIN IMMEDIATE` serialises writers), persistent,
/// SQL schema, leases on SQLite's real clock, and `Options`' limits. Harness members throw
/// `std::runtime_error` with SQLite's message when the store fails.
class SqliteHarness final : public conformance::Harness {
 public:
  /// A fresh database in a new directory under the system's temporary directory, removed
  /// with the harness.
  SqliteHarness();
  /// The database at `path`: created when missing. `reset` deletes every row of the thm
  /// tables in it, so point it only at a scratch file.
  explicit SqliteHarness(std::string path, Options options = {});
  ~SqliteHarness() override;
  SqliteHarness(const SqliteHarness&) = delete;
  SqliteHarness& operator=(const SqliteHarness&) = delete;

  [[nodiscard]] std::string name() const override { return "sqlite"; }
  [[nodiscard]] conformance::Capabilities capabilities() const override;
  void reset() override;
  [[nodiscard]] std::unique_ptr<conformance::Session> open_session() override;
  void commit_reply(const CommittedReply& reply) override;
  void set_policy(MentionDispatchPolicy policy) override;
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override;
  void set_available(const std::string& agent_id, bool available) override;
  void set_hook(TransactionHook hook) override;
  void settle(std::uint64_t child_id, conformance::Settlement how) override;
  void run_maintenance() override;
  void reopen() override;
  /// Forks; the child opens its own connection, enqueues, and is killed by the parent with
  /// SIGKILL after it reported its answer, or while it waits at `BeforeCommit`.
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, conformance::KillPoint when) override;
  [[nodiscard]] StoreTime store_now() override;
  [[nodiscard]] std::vector<conformance::RecordRow> records() override;
  [[nodiscard]] std::vector<conformance::ChildRow> children() override;
  [[nodiscard]] std::optional<UniqueIndex> unique_key_index() override;
  /// SQLite has no row locks: the write lock (`BEGIN IMMEDIATE`) of a transaction on a
  /// connection of its own holds every row, the child's among them, until the `Hold` ends.
  [[nodiscard]] std::unique_ptr<conformance::Hold> hold_child(std::uint64_t child_id) override;

  /// The harness over a scratch database at `path`, for a user who names one (`thm
  /// conformance --queue sqlite:PATH`): a missing or empty file becomes one (marked with a
  /// `thm_conformance_scratch` table); a file already marked is reused. Any other database
  /// is refused with `std::runtime_error` saying why, since `reset` deletes every thm row.
  [[nodiscard]] static std::unique_ptr<SqliteHarness> open_scratch(const std::string& path);

  /// The database file.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  [[nodiscard]] std::unique_ptr<SqliteQueue> connect(Options options) const;

  std::string directory_;  // the temporary directory, when the harness made one
  std::string path_;
  Options options_;
  std::shared_ptr<conformance::HookSlot> hook_ = std::make_shared<conformance::HookSlot>();
  std::unique_ptr<SqliteQueue> admin_;
};

}  // namespace thm::sqlite
