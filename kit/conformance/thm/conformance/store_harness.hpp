#pragma once
/// \file
/// `StoreHarness<Setup>`: the one conformance harness for every `thm::ReferenceStore`
/// (adr/0010). A store's harness is a `Setup`, its name, its capabilities and how to open
/// the store, plus what only that store can do (hold a row, restart a server), and one line
/// `using MyHarness = conformance::StoreHarness<MySetup>;`. The pieces it is made of (a
/// session over one store object, a hook slot shared by every connection, the inspector's
/// rows) are here for harnesses shaped otherwise.

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "thm/conformance/crash.hpp"
#include "thm/conformance/harness.hpp"
#include "thm/store/reference_store.hpp"

namespace thm::conformance {

/// The value of `result`, or `std::runtime_error("<what>: <kind>: <message>")` (harness
/// members report store failures by throwing).
template <class T>
T value_or_throw(Result<T, QueueError> result, const char* what) {
  if (!result) {
    throw std::runtime_error(std::string(what) + ": " + std::string(name(result.error().kind)) +
                             ": " + result.error().message);
  }
  return *std::move(result);
}

/// A session over one store object, held by `Handle` (a `std::unique_ptr` to a connection of
/// its own, or a `std::shared_ptr` to a store shared in process) to a `ReferenceStore`.
template <class Handle>
class QueueSession final : public Session {
 public:
  explicit QueueSession(Handle queue) : queue_(std::move(queue)) {}
  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
    return queue_->enqueue_once(request);
  }
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) override {
    return queue_->claim(duration);
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) override {
    return queue_->renew(token, duration);
  }
  Result<TurnState, LeaseError> complete(const std::string& token) override {
    return queue_->complete(token);
  }
  Result<TurnState, LeaseError> fail(const std::string& token) override {
    return queue_->fail(token);
  }

 private:
  Handle queue_;
};

/// Ends child `child_id` the way `how` says on `queue`. Throws `std::invalid_argument` for a
/// missing child and `std::runtime_error` for a store failure.
template <ReferenceStore Queue>
void settle_child(Queue& queue, std::uint64_t child_id, Settlement how) {
  const auto settled = [&] {
    switch (how) {
      case Settlement::Complete:
        return queue.settle(child_id, TurnState::Completed);
      case Settlement::Fail:
        return queue.settle(child_id, TurnState::Failed);
      case Settlement::DeadLetter:
        return queue.settle(child_id, TurnState::Dead);
      case Settlement::Delete:
        break;
    }
    return queue.remove(child_id);
  }();
  if (!value_or_throw(settled, "settling a child turn")) {
    throw std::invalid_argument("no child turn with id " + std::to_string(child_id));
  }
}

/// The hook the suite installs, shared by every connection a harness opens (including ones
/// opened before it was installed).
class HookSlot {
 public:
  /// Installs `hook` for every connection; an empty one removes it.
  void install(TransactionHook hook) {
    auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
    const std::scoped_lock guard(mutex_);
    hook_ = std::move(installed);
  }
  /// A hook for one connection that calls whatever is installed when it runs.
  [[nodiscard]] static TransactionHook trampoline(std::shared_ptr<HookSlot> slot) {
    return [slot = std::move(slot)](HookPoint point, const MentionTurnRequest& request) {
      std::shared_ptr<const TransactionHook> hook;
      {
        const std::scoped_lock guard(slot->mutex_);
        hook = slot->hook_;
      }
      return !hook || (*hook)(point, request);
    };
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const TransactionHook> hook_;
};

/// What `StoreHarness` needs to know of one store (a class the store's harness writes):
/// - `using Store = …;` a `ReferenceStore`;
/// - `std::string queue_name() const` and `Capabilities capabilities() const`, for reports;
/// - `open(TransactionHook hook)`: a new connection to the store (or the one shared store
///   object) that calls `hook` at every `HookPoint`, as `Result<Handle, QueueError>` where
///   `Handle` is a `std::unique_ptr<Store>` or `std::shared_ptr<Store>`. It must not throw,
///   and it may run in a forked child (EQ-23).
/// Optional members the harness uses when present: `hold_child(id)` (a
/// `std::unique_ptr<Hold>`, EQ-27), `restart()` (the store's server, after EQ-23's kill),
/// `advance_store_clock(by)` (an injected clock), `set_client_clock(clock)` (a store that
/// reads the host's clock, which EQ-14 and EQ-15 move), and `set_hook(hook)` for a store that
/// installs hooks on itself (an empty hook removes it; `open` is then given none), where a
/// store without it takes the harness's hook slot at `open`. A store on several nodes
/// (`nodes`) has `node_count()`, `leader()`, `kill_node(n)`, `restart_node(n)`,
/// `pause_node(n)`, `resume_node(n)` and `recover()`, after which the harness opens its own
/// connection again; and a setup with `after_host_write()` has it called after each of the
/// host's writes (`reset` and the four writes of the fixture).
template <class Setup>
concept StoreSetup = ReferenceStore<typename Setup::Store> &&
    requires(Setup& setup, const Setup& view, TransactionHook hook) {
  { view.queue_name() } -> std::convertible_to<std::string>;
  { view.capabilities() } -> std::same_as<Capabilities>;
  { setup.open(hook).has_value() } -> std::same_as<bool>;
  { *setup.open(hook).value() } -> std::same_as<typename Setup::Store&>;
};

/// The part of a `StoreSetup` that every SQL reference store shares (the SQLite and
/// PostgreSQL queues' setups derive from it): the store `where` names (a file, a conninfo),
/// opened by `Queue::open(where, options)` once per connection, and what such a store
/// declares. A derived setup adds its `queue_name()`, the `hold_child` those capabilities promise,
/// and whatever else only it can do.
template <SqlReferenceStore Queue, class Options>
class SqlStoreSetup {
 public:
  /// The SQL store a connection is.
  using Store = Queue;
  /// The store at `where`, opened with `options` (their hook is replaced at each `open`).
  SqlStoreSetup(std::string where, Options options)
      : where_(std::move(where)), options_(std::move(options)) {}

  /// Hooks, row locking (transactions hold what they read, or serialise writers),
  /// persistent, a SQL schema, leases on the store's real clock, `hold_child`, and
  /// `options`' limits (`max_content_bytes`, `max_id_bytes`, `max_attempts`).
  [[nodiscard]] Capabilities capabilities() const {
    return {.hooks = true,
            .row_locking = true,
            .persistent = true,
            .sql_schema = true,
            .max_content_bytes = options_.max_content_bytes,
            .max_id_bytes = options_.max_id_bytes,
            .leases = true,
            .injected_store_clock = false,
            .skewable_client_clock = true,  // leases are the store's; no clock is read here
            .hold_child = true,
            .max_attempts = options_.max_attempts};
  }
  /// A new store object on connections of its own, whose steps call `hook`.
  [[nodiscard]] Result<std::unique_ptr<Queue>, QueueError> open(TransactionHook hook) const {
    Options options = options_;
    options.hook = std::move(hook);
    return Queue::open(where_, std::move(options));
  }
  /// Where the store is: the file or conninfo `open` passes on.
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
  Options options_;
};

/// A `Hold` that keeps `held` until it is destroyed: a connection of its own, inside the
/// transaction that holds the row, whose destructor rolls that transaction back.
template <class Held>
class HoldOf final : public Hold {
 public:
  explicit HoldOf(Held held) : held_(std::move(held)) {}

 private:
  Held held_;
};

/// A shell command that restarts a store's server, run after EQ-23 kills the host process;
/// empty: there is none. A setup that derives from it has the `restart()` the harness calls.
class RestartCommand {
 public:
  explicit RestartCommand(std::string command = {}) : command_(std::move(command)) {}
  /// Runs the command, if any; throws `std::runtime_error` when it fails.
  void restart() const {
    if (!command_.empty() && std::system(command_.c_str()) != 0) {
      throw std::runtime_error("the restart command failed: " + command_);
    }
  }

 private:
  std::string command_;
};

/// The conformance harness over the store `Setup` opens: the host's writes, lifecycle and
/// inspector on one connection of its own, a new connection per session, one hook slot
/// every connection calls. It is its own facets: `durability()` when the setup declares
/// `persistent`, `clocks()` with `leases`, `nodes()` when the setup has the node members;
/// `unique_key_index` works when its store is a `SqlReferenceStore`. Members throw
/// `std::runtime_error` with the store's error when it fails.
template <StoreSetup Setup>
class StoreHarness final : public Harness, public Durability, public NodeFaults, public Clocks {
 public:
  /// The `ReferenceStore` the setup opens.
  using Store = typename Setup::Store;

  /// Makes the setup from `args` and opens the harness's own connection.
  template <class... Args>
  requires std::constructible_from<Setup, Args...>
  explicit StoreHarness(Args&&... args) : setup_(std::forward<Args>(args)...), admin_(connect()) {}

  [[nodiscard]] std::string queue_name() const override { return setup_.queue_name(); }
  [[nodiscard]] Capabilities capabilities() const override { return setup_.capabilities(); }
  void reset() override {
    set_hook({});
    value_or_throw(admin().clear(), "clearing the tables");
    after_host_write();
  }
  [[nodiscard]] std::unique_ptr<Session> open_session() override {
    return std::make_unique<QueueSession<Handle>>(connect());
  }
  void commit_reply(const CommittedReply& reply) override {
    value_or_throw(admin().commit_reply(reply), "committing a reply");
    after_host_write();
  }
  void set_policy(MentionDispatchPolicy policy) override {
    value_or_throw(admin().set_policy(policy), "writing the policy");
    after_host_write();
  }
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override {
    value_or_throw(admin().set_authorized(source_id, target_id, authorized),
                   "writing authorization");
    after_host_write();
  }
  void set_available(const std::string& agent_id, bool available) override {
    value_or_throw(admin().set_available(agent_id, available), "writing availability");
    after_host_write();
  }
  /// Installs `hook` for every later step; throws `Unsupported` for a hook when the setup
  /// does not declare `hooks` (EQ-24), so a store without them never ignores one silently.
  void set_hook(TransactionHook hook) override {
    if (hook && !setup_.capabilities().hooks) throw Unsupported("set_hook");
    if constexpr (kHooksItself) {
      setup_.set_hook(std::move(hook));
    } else {
      hook_->install(std::move(hook));
    }
  }
  void settle(std::uint64_t child_id, Settlement how) override {
    settle_child(admin(), child_id, how);
  }
  void run_maintenance() override { (void)value_or_throw(admin().prune(), "pruning"); }
  [[nodiscard]] std::unique_ptr<Hold> hold_child(std::uint64_t child_id) override {
    if constexpr (requires { setup_.hold_child(child_id); }) {
      return setup_.hold_child(child_id);
    } else {
      throw Unsupported("hold_child");
    }
  }
  [[nodiscard]] std::vector<IdempotencyRecord> records() override {
    return value_or_throw(admin().records(), "reading records");
  }
  [[nodiscard]] std::vector<ChildTurn> children() override {
    return value_or_throw(admin().children(), "reading children");
  }
  /// The first unique index the store lists: a reference schema has exactly one.
  [[nodiscard]] std::optional<UniqueIndex> unique_key_index() override {
    if constexpr (SqlReferenceStore<Store>) {
      auto indexes = value_or_throw(admin().idempotency_indexes(), "reading the schema");
      if (indexes.empty()) return std::nullopt;
      return std::move(indexes.front());
    } else {
      return std::nullopt;
    }
  }

  [[nodiscard]] Durability* durability() override {
    return setup_.capabilities().persistent ? this : nullptr;
  }
  [[nodiscard]] NodeFaults* nodes() override {
    if constexpr (kOnNodes) {
      return this;
    } else {
      return nullptr;
    }
  }
  [[nodiscard]] Clocks* clocks() override { return setup_.capabilities().leases ? this : nullptr; }

  // ---- Durability ----
  void reopen() override {
    admin_.reset();
    admin_ = connect();
  }
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, KillPoint when) override;

  // ---- NodeFaults: the setup's, when it has them (`nodes()` is null otherwise) ----
  [[nodiscard]] std::size_t node_count() override {
    return on_nodes<std::size_t>([](auto& setup) { return setup.node_count(); });
  }
  [[nodiscard]] std::size_t leader() override {
    return on_nodes<std::size_t>([](auto& setup) { return setup.leader(); });
  }
  void kill_node(std::size_t node) override {
    on_nodes<void>([node](auto& setup) { setup.kill_node(node); });
  }
  void restart_node(std::size_t node) override {
    on_nodes<void>([node](auto& setup) { setup.restart_node(node); });
  }
  void pause_node(std::size_t node) override {
    on_nodes<void>([node](auto& setup) { setup.pause_node(node); });
  }
  void resume_node(std::size_t node) override {
    on_nodes<void>([node](auto& setup) { setup.resume_node(node); });
  }
  /// The setup's recovery, then a new connection of the harness's own: the one it had may
  /// lead to a node that is gone or no longer takes writes.
  void recover() override {
    on_nodes<void>([this](auto& setup) {
      setup.recover();
      admin_.reset();
      admin_ = connect();
    });
  }

  // ---- Clocks ----
  [[nodiscard]] StoreTime store_now() override {
    return value_or_throw(admin().now(), "reading the clock");
  }
  void advance_store_clock(std::chrono::milliseconds by) override {
    if constexpr (requires { setup_.advance_store_clock(by); }) {
      setup_.advance_store_clock(by);
    } else {
      throw Unsupported("advance_store_clock");
    }
  }
  void set_client_clock(ClientClock clock) override {
    if constexpr (requires { setup_.set_client_clock(clock); }) {
      setup_.set_client_clock(std::move(clock));
    }
  }

  /// The setup, for what only this store offers (a database path, the shared queue).
  [[nodiscard]] Setup& setup() noexcept { return setup_; }

 private:
  using Handle = std::remove_cvref_t<decltype(std::declval<Setup&>().open({}).value())>;

  static constexpr bool kHooksItself = requires(Setup & setup) { setup.set_hook({}); };
  static constexpr bool kOnNodes = requires(Setup & setup, std::size_t node) {
    { setup.node_count() } -> std::same_as<std::size_t>;
    { setup.leader() } -> std::same_as<std::size_t>;
    setup.kill_node(node);
    setup.restart_node(node);
    setup.pause_node(node);
    setup.resume_node(node);
    setup.recover();
  };

  // `forward(setup_)` for a setup on several nodes; never reached for any other, whose
  // `nodes()` is null.
  template <class Answer, class Forward>
  Answer on_nodes(Forward forward) {
    if constexpr (kOnNodes) {
      return forward(setup_);
    } else {
      (void)forward;
      throw Unsupported("nodes");
    }
  }

  void after_host_write() {
    if constexpr (requires { setup_.after_host_write(); }) setup_.after_host_write();
  }

  [[nodiscard]] Handle connect() {
    TransactionHook hook;
    if constexpr (!kHooksItself) hook = HookSlot::trampoline(hook_);
    return value_or_throw(setup_.open(std::move(hook)), "opening the store");
  }
  // The harness's own connection, opened again first if a failed restart left none.
  [[nodiscard]] Store& admin() {
    if (!admin_) admin_ = connect();
    return *admin_;
  }

  std::shared_ptr<HookSlot> hook_ = std::make_shared<HookSlot>();
  Setup setup_;
  Handle admin_;
};

template <StoreSetup Setup>
std::optional<Result<EnqueueOutcome, QueueError>> StoreHarness<Setup>::enqueue_then_kill(
    const MentionTurnRequest& request, KillPoint when) {
  using Answer = Result<EnqueueOutcome, QueueError>;
  // The harness's own connection closes first: the child must not inherit one in use, and
  // SQLite's file locks belong to the process, so a lock it held would look like the child's.
  admin_.reset();
  std::optional<Answer> answer;
  try {
    answer = enqueue_in_killed_child(when, [&](TransactionHook hook) {
      // In the child: a store that hooks itself takes the kill's hook as the suite's.
      if constexpr (kHooksItself) {
        setup_.set_hook(std::move(hook));
        hook = {};
      }
      auto store = setup_.open(std::move(hook));
      if (!store) return Answer(unexpected{store.error()});
      return (*store)->enqueue_once(request);
    });
  } catch (...) {
    admin_ = connect();
    throw;
  }
  // A restart that fails leaves no connection; the next member opens one again.
  if constexpr (requires { setup_.restart(); }) setup_.restart();
  admin_ = connect();
  return answer;
}

}  // namespace thm::conformance
