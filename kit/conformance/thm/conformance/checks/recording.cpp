#include "thm/conformance/checks/recording.hpp"

#include <algorithm>
#include <exception>
#include <string_view>
#include <type_traits>
#include <utility>

#include "thm/conformance/checks/run.hpp"
#include "thm/conformance/report_common.hpp"

namespace thm::conformance::checking {

namespace {

using detail::shown_bytes;

// The call this thread is making through a recorded session, for the hook it may reach.
struct Calling {
  const History* history = nullptr;
  std::uint32_t lane = 0;
};
thread_local Calling t_calling{};

// A hook call is a pause worth drawing when it held its step this long, or while anything
// else happened; one that let its step go on at once is not an event (every enqueue passes
// six hook points).
constexpr std::chrono::milliseconds kPause{1};

// The event of a read of the store's clock, which only the checker reads.
constexpr std::string_view kStoreNow = "store_now";

// An id as a timeline shows it: bytes outside printable ASCII as `\xNN` (two spellings of
// `café`, or a right-to-left override, must not look alike), and a long one as its first
// and last 12 bytes with its length, since ids that differ often differ at the end.
std::string cut(std::string_view id) {
  constexpr std::size_t kMost = 32;
  constexpr std::size_t kEnds = 12;
  if (id.size() <= kMost) return shown_bytes(id);
  return shown_bytes(id.substr(0, kEnds)) + "..." + shown_bytes(id.substr(id.size() - kEnds)) +
         " (" + std::to_string(id.size()) + " bytes)";
}

std::string threw(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  } catch (...) {
    return "threw";
  }
}

std::string describe_lease(const Result<std::optional<Lease>, LeaseError>& answer) {
  if (!answer) return "error " + std::string(name(answer.error()));
  if (!*answer) return "nothing to claim";
  return "leased child " + std::to_string((*answer)->child_id) + ", token " + cut((*answer)->token);
}
template <class T>
std::string describe_lease(const Result<T, LeaseError>& answer) {
  if (!answer) return "error " + std::string(name(answer.error()));
  if constexpr (std::is_same_v<T, TurnState>) {
    return std::string(name(*answer));
  } else {
    return "renewed";
  }
}

// The operation a call with `answer` was, as the checker reads it, completing `op`: false
// when the call did not happen (a definite error, which writes nothing).
bool answered(Operation& op, const Result<EnqueueOutcome, QueueError>& answer) {
  using Answer = Operation::Answer;
  if (!answer) {
    const auto kind = answer.error().kind;
    op.answer = Answer::Unknown;
    return kind == QueueErrorKind::Indeterminate || kind == QueueErrorKind::Internal;
  }
  op.answer = std::visit(overloaded{[](const Enqueued&) { return Answer::Enqueued; },
                                    [](const Already&) { return Answer::Already; },
                                    [](const Refused&) { return Answer::Refused; }},
                         *answer);
  return true;
}
bool answered(Operation& op, const Result<std::optional<Lease>, LeaseError>& answer) {
  if (!answer) return false;  // unavailable or invalid_duration: nothing was claimed
  if (!*answer) {
    op.answer = Operation::Answer::Nothing;
    return true;
  }
  const Lease& lease = **answer;
  op.answer = Operation::Answer::Leased;
  op.key = turn_key(lease.request).encoded();
  op.token = lease.token;
  op.attempt = lease.attempt;
  op.expires_ms = lease.expires_at.time_since_epoch().count();
  return true;
}
template <class T>
bool answered(Operation& op, const Result<T, LeaseError>& answer) {
  if (!answer) {
    op.answer = Operation::Answer::Stale;
    return answer.error() == LeaseError::StaleToken;
  }
  if constexpr (std::is_same_v<T, TurnState>) {
    op.answer = Operation::Answer::Settled;
    op.back_to_queue = *answer == TurnState::Pending;
  } else {
    op.answer = Operation::Answer::Renewed;
    op.expires_ms = answer->time_since_epoch().count();
  }
  return true;
}

bool is_unsupported(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Unsupported&) {
    return true;
  } catch (...) {
    return false;
  }
}

// A session of the harness under test, noting each call on its lane, with its operation.
class RecordedSession final : public Session {
  // Runs `call`, noting it on this session's lane with the answer `describe_answer` gives
  // and `op` completed by the answer.
  template <class Call, class Describe>
  auto noted(std::string what, std::string subject, Operation op, Call&& call,
             Describe&& describe_answer) {
    HistoryEvent event{.kind = HistoryEvent::Kind::Call,
                       .lane = lane_,
                       .what = std::move(what),
                       .subject = std::move(subject),
                       .start_us = history_->now_us()};
    const auto add = [&](bool happened) {
      event.end_us = history_->now_us();
      if (happened) {
        op.invoke = event.start_us;
        op.complete = event.end_us;
        event.operation = std::move(op);
      }
      history_->add(std::move(event));
    };
    try {
      auto answer = call();
      event.answer = describe_answer(answer);
      const bool happened = answered(op, answer);
      if (happened && op.answer == Operation::Answer::Leased) history_->issued(op.token, op.key);
      add(happened);
      return answer;
    } catch (...) {
      event.answer = threw(std::current_exception());
      op.answer = Operation::Answer::Unknown;
      if (op.kind == Operation::Kind::Claim) op.key.clear();
      add(!is_unsupported(std::current_exception()));
      throw;
    }
  }
  Operation lease_call(Operation::Kind kind, const std::string& token,
                       std::chrono::milliseconds duration = {}) const {
    return {.kind = kind,
            .key = token.empty() ? std::string() : history_->key_of(token),
            .token = token,
            .duration_ms = duration.count()};
  }

 public:
  RecordedSession(std::unique_ptr<Session> inner, std::shared_ptr<History> history)
      : inner_(std::move(inner)), history_(std::move(history)), lane_(history_->open_lane()) {}

  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
    history_->start_call(lane_, request);
    const Calling outer = std::exchange(t_calling, Calling{history_.get(), lane_});
    struct Finish {
      RecordedSession& session;
      Calling outer;
      ~Finish() {
        t_calling = outer;
        session.history_->finish_call(session.lane_);
      }
    } const finish{*this, outer};
    return noted(
        "enqueue_once", describe_request(request),
        {.kind = Operation::Kind::Enqueue, .key = turn_key(request).encoded()},
        [&] { return inner_->enqueue_once(request); },
        [](const Result<EnqueueOutcome, QueueError>& answer) { return describe(answer); });
  }
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) override {
    return noted(
        "claim", std::to_string(duration.count()) + " ms",
        lease_call(Operation::Kind::Claim, {}, duration), [&] { return inner_->claim(duration); },
        [](const auto& answer) { return describe_lease(answer); });
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) override {
    return noted(
        "renew", std::to_string(duration.count()) + " ms",
        lease_call(Operation::Kind::Renew, token, duration),
        [&] { return inner_->renew(token, duration); },
        [](const auto& answer) { return describe_lease(answer); });
  }
  Result<TurnState, LeaseError> complete(const std::string& token) override {
    return noted(
        "complete", "", lease_call(Operation::Kind::Complete, token),
        [&] { return inner_->complete(token); },
        [](const auto& answer) { return describe_lease(answer); });
  }
  Result<TurnState, LeaseError> fail(const std::string& token) override {
    return noted(
        "fail", "", lease_call(Operation::Kind::Fail, token), [&] { return inner_->fail(token); },
        [](const auto& answer) { return describe_lease(answer); });
  }

 private:
  std::unique_ptr<Session> inner_;
  std::shared_ptr<History> history_;
  std::uint32_t lane_;
};

// Runs `member`, noting it in `history` as a `Harness` event `what` on `subject`; with
// `operation`, the event carries what `operation` makes of the answer (the answer itself
// for a member that returns none), or nothing for a call that did not happen.
template <class Member, class Operate = std::nullptr_t>
decltype(auto) noted(History& history, std::string what, std::string subject, Member&& member,
                     Operate&& operation = nullptr) {
  HistoryEvent event{.kind = HistoryEvent::Kind::Harness,
                     .what = std::move(what),
                     .subject = std::move(subject),
                     .start_us = history.now_us()};
  const auto add = [&](const auto&... answer) {
    event.end_us = history.now_us();
    if constexpr (!std::is_null_pointer_v<std::decay_t<Operate>>) {
      if (auto op = operation(answer...)) {
        op->invoke = event.start_us;
        op->complete = event.end_us;
        event.operation = std::move(op);
      }
    }
    history.add(std::move(event));
  };
  try {
    if constexpr (std::is_void_v<decltype(member())>) {
      member();
      add();
    } else {
      auto answer = member();
      add(answer);
      return answer;
    }
  } catch (...) {
    event.answer = threw(std::current_exception());
    event.end_us = history.now_us();
    history.add(std::move(event));
    throw;
  }
}

}  // namespace

// The facets of the harness under test, each forwarding to the harness's own and noting the
// faults and lifecycle steps it makes.
class RecordedDurability final : public Durability {
 public:
  RecordedDurability(Durability& inner, History& history) : inner_(inner), history_(history) {}
  void reopen() override {
    noted(history_, "reopen", "", [&] { inner_.reopen(); });
  }
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, KillPoint when) override {
    const std::string at = when == KillPoint::AfterAnswer ? "killed after the answer"
                                                          : "killed inside the transaction";
    // An enqueue by another process: its answer when it had one, else of unknown outcome.
    const auto operation = [&request](const auto& answer) -> std::optional<Operation> {
      Operation op{.kind = Operation::Kind::Enqueue,
                   .answer = Operation::Answer::Unknown,
                   .key = turn_key(request).encoded()};
      if (answer && !answered(op, *answer)) return std::nullopt;
      return op;
    };
    return noted(
        history_, "enqueue_then_kill", describe_request(request) + ", " + at,
        [&] { return inner_.enqueue_then_kill(request, when); }, operation);
  }

 private:
  Durability& inner_;
  History& history_;
};

class RecordedNodes final : public NodeFaults {
 public:
  RecordedNodes(NodeFaults& inner, History& history) : inner_(inner), history_(history) {}
  std::size_t node_count() override { return inner_.node_count(); }
  std::size_t leader() override { return inner_.leader(); }
  void kill_node(std::size_t node) override {
    noted(history_, "kill_node", node_name(node), [&] { inner_.kill_node(node); });
  }
  void restart_node(std::size_t node) override {
    noted(history_, "restart_node", node_name(node), [&] { inner_.restart_node(node); });
  }
  void pause_node(std::size_t node) override {
    noted(history_, "pause_node", node_name(node), [&] { inner_.pause_node(node); });
  }
  void resume_node(std::size_t node) override {
    noted(history_, "resume_node", node_name(node), [&] { inner_.resume_node(node); });
  }
  void recover() override {
    noted(history_, "recover", "", [&] { inner_.recover(); });
  }

 private:
  static std::string node_name(std::size_t node) { return "node " + std::to_string(node); }
  NodeFaults& inner_;
  History& history_;
};

class RecordedClocks final : public Clocks {
 public:
  RecordedClocks(Clocks& inner, History& history) : inner_(inner), history_(history) {}
  // A read of the store's clock bounds when the calls around it took effect: kept for the
  // checker and the exported history; the timeline does not draw it.
  StoreTime store_now() override {
    const std::uint64_t start = history_.now_us();
    const StoreTime now = inner_.store_now();
    history_.add(HistoryEvent{.kind = HistoryEvent::Kind::Harness,
                              .what = std::string(kStoreNow),
                              .start_us = start,
                              .end_us = history_.now_us(),
                              .store_time_ms = now.time_since_epoch().count()});
    return now;
  }
  void advance_store_clock(std::chrono::milliseconds by) override {
    noted(history_, "advance_store_clock", "+" + std::to_string(by.count()) + " ms",
          [&] { inner_.advance_store_clock(by); });
  }
  void set_client_clock(ClientClock clock) override { inner_.set_client_clock(std::move(clock)); }

 private:
  Clocks& inner_;
  History& history_;
};

namespace {

// The recorded facet over `inner`, made once per inner facet and kept in `held`.
template <class Recorded, class Facet>
Facet* recorded(Facet* inner, std::unique_ptr<Recorded>& held, Facet*& held_inner,
                History& history) {
  if (inner == nullptr) return nullptr;
  if (!held || held_inner != inner) {
    held = std::make_unique<Recorded>(*inner, history);
    held_inner = inner;
  }
  return held.get();
}

}  // namespace

std::string describe_request(const MentionTurnRequest& request) {
  std::string text = cut(request.source_id) + " -> " + cut(request.target_id) + ", " +
                     cut(request.conversation.desk_id);
  if (request.conversation.thread_root) {
    text += " thread " + std::to_string(*request.conversation.thread_root);
  }
  return text + ", seq " + std::to_string(request.key.trigger_sequence);
}

// ---- History ----------------------------------------------------------------------------------

History::History() : since_(std::chrono::steady_clock::now()) {}

std::uint64_t History::now_us() const {
  const std::scoped_lock lock(mutex_);
  const auto elapsed = std::chrono::steady_clock::now() - since_;
  return static_cast<std::uint64_t>(std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()));
}

void History::restart() {
  const std::scoped_lock lock(mutex_);
  since_ = std::chrono::steady_clock::now();
  lanes_ = 0;
  ring_.clear();
  next_ = 0;
  dropped_ = 0;
  in_flight_.clear();
  token_keys_.clear();
  stretch_.clear();
  stretch_overflowed_ = false;
}

std::uint32_t History::open_lane() {
  const std::scoped_lock lock(mutex_);
  return lanes_++;
}

void History::add(HistoryEvent event) {
  const std::scoped_lock lock(mutex_);
  if (event.operation || event.store_time_ms) {
    if (stretch_.size() < kStretchLimit) {
      stretch_.push_back(event);
    } else {
      stretch_overflowed_ = true;
    }
  }
  if (ring_.size() < kHistoryLimit) {
    ring_.push_back(std::move(event));
    return;
  }
  ring_[next_] = std::move(event);
  next_ = (next_ + 1) % kHistoryLimit;
  ++dropped_;
}

void History::start_call(std::uint32_t lane, const MentionTurnRequest& request) {
  std::string key = turn_key(request).encoded();
  const std::scoped_lock lock(mutex_);
  in_flight_[lane] = std::move(key);
}

void History::finish_call(std::uint32_t lane) {
  const std::scoped_lock lock(mutex_);
  in_flight_.erase(lane);
}

std::optional<std::uint32_t> History::lane_of(const MentionTurnRequest& request) const {
  if (t_calling.history == this) return t_calling.lane;
  const std::string key = turn_key(request).encoded();
  const std::scoped_lock lock(mutex_);
  std::optional<std::uint32_t> found;
  for (const auto& [lane, in_flight] : in_flight_) {
    if (in_flight != key) continue;
    if (found) return std::nullopt;  // two calls on one key: either could be paused
    found = lane;
  }
  return found;
}

std::vector<HistoryEvent> History::events() const {
  std::vector<HistoryEvent> out;
  {
    const std::scoped_lock lock(mutex_);
    out.reserve(ring_.size());
    for (std::size_t i = 0; i < ring_.size(); ++i) out.push_back(ring_[(next_ + i) % ring_.size()]);
  }
  std::ranges::stable_sort(out, {}, &HistoryEvent::start_us);
  return out;
}

std::uint64_t History::dropped() const {
  const std::scoped_lock lock(mutex_);
  return dropped_;
}

void History::issued(const std::string& token, const std::string& key) {
  const std::scoped_lock lock(mutex_);
  token_keys_[token] = key;
}

std::string History::key_of(const std::string& token) const {
  const std::scoped_lock lock(mutex_);
  const auto found = token_keys_.find(token);
  return found == token_keys_.end() ? std::string() : found->second;
}

std::vector<HistoryEvent> History::take_stretch(bool& overflowed) {
  const std::scoped_lock lock(mutex_);
  overflowed = stretch_overflowed_;
  std::vector<HistoryEvent> out;
  if (!overflowed) out.swap(stretch_);
  stretch_.clear();
  stretch_overflowed_ = false;
  return out;
}

std::uint64_t History::added() const {
  const std::scoped_lock lock(mutex_);
  return ring_.size() + dropped_;
}

// ---- Recording ----------------------------------------------------------------------------------

Recording::Recording(Harness& harness) : inner_(harness), history_(std::make_shared<History>()) {}
Recording::~Recording() = default;

std::string Recording::queue_name() const { return inner_.queue_name(); }
Capabilities Recording::capabilities() const { return inner_.capabilities(); }

void Recording::reset() {
  judge_stretch();
  inner_.reset();
  history_->restart();
}

const std::optional<Violation>& Recording::violation() {
  judge_stretch();
  return violation_;
}

void Recording::judge_stretch() {
  bool overflowed = false;
  std::vector<HistoryEvent> stretch = history_->take_stretch(overflowed);
  if (overflowed) ++overflowed_stretches_;
  if (violation_ || stretch.empty()) return;
  const Capabilities capabilities = inner_.capabilities();
  violation_ = judged(stretch, capabilities, unjudged_keys_);
}

std::string Recording::unjudged() const {
  std::string note;
  if (unjudged_keys_ > 0) {
    note = std::to_string(unjudged_keys_) +
           " key(s) were not judged for linearizability: a lease call of unknown outcome, whose "
           "lease the checker cannot follow, or a search past its budget";
  }
  if (overflowed_stretches_ > 0) {
    note += std::string(note.empty() ? "" : "; ") + std::to_string(overflowed_stretches_) +
            " stretch(es) between resets were not judged for linearizability: more than " +
            std::to_string(kStretchLimit) + " events";
  }
  return note;
}

std::unique_ptr<Session> Recording::open_session() {
  return std::make_unique<RecordedSession>(inner_.open_session(), history_);
}

void Recording::commit_reply(const CommittedReply& reply) {
  std::string subject = "seq " + std::to_string(reply.sequence) + " by " + cut(reply.author_id) +
                        ", hop " + std::to_string(reply.hop);
  noted(*history_, "commit_reply", std::move(subject), [&] { inner_.commit_reply(reply); });
}

void Recording::set_policy(MentionDispatchPolicy policy) {
  std::string subject = policy.enabled ? "enabled, max_hops " + std::to_string(policy.max_hops)
                                       : std::string("disabled");
  noted(*history_, "set_policy", std::move(subject), [&] { inner_.set_policy(policy); });
}

void Recording::set_authorized(const std::string& source_id, const std::string& target_id,
                               bool authorized) {
  noted(*history_, "set_authorized",
        cut(source_id) + " -> " + cut(target_id) + (authorized ? ": allowed" : ": forbidden"),
        [&] { inner_.set_authorized(source_id, target_id, authorized); });
}

void Recording::set_available(const std::string& agent_id, bool available) {
  noted(*history_, "set_available", cut(agent_id) + (available ? ": available" : ": unavailable"),
        [&] { inner_.set_available(agent_id, available); });
}

void Recording::set_hook(TransactionHook hook) {
  if (!hook) {
    noted(*history_, "set_hook", "removed", [&] { inner_.set_hook({}); });
    return;
  }
  noted(*history_, "set_hook", "installed", [&] { inner_.set_hook(wrapped(std::move(hook))); });
}

TransactionHook Recording::wrapped(TransactionHook hook) {
  return [history = history_, hook = std::move(hook)](HookPoint at,
                                                      const MentionTurnRequest& request) {
    HistoryEvent event{.kind = HistoryEvent::Kind::Pause,
                       .lane = history->lane_of(request),
                       .what = std::string(thm::name(at)),
                       .start_us = history->now_us()};
    const std::uint64_t before = history->added();
    bool proceed = false;
    try {
      proceed = hook(at, request);
    } catch (...) {
      event.answer = threw(std::current_exception());
      event.end_us = history->now_us();
      history->add(std::move(event));
      throw;
    }
    event.end_us = history->now_us();
    const bool held =
        event.end_us - event.start_us >= kPause.count() * 1000U || history->added() != before;
    if (!proceed || held) {
      event.answer = proceed ? "continued" : "failed the step";
      history->add(std::move(event));
    }
    return proceed;
  };
}

void Recording::settle(std::uint64_t child_id, Settlement how) {
  std::string key = key_of_child(child_id);
  noted(
      *history_, "settle",
      "child " + std::to_string(child_id) + ": " + std::string(conformance::name(how)),
      [&] { inner_.settle(child_id, how); },
      [&key]() -> std::optional<Operation> {
        if (key.empty()) return std::nullopt;
        return Operation{.kind = Operation::Kind::Settle,
                         .answer = Operation::Answer::Settled,
                         .key = std::move(key)};
      });
}

std::string Recording::key_of_child(std::uint64_t child_id) {
  try {
    for (const ChildTurn& child : inner_.children()) {
      if (child.id == child_id) return turn_key(child.request).encoded();
    }
  } catch (...) {  // an inspector that cannot answer leaves the child's key unknown
  }
  return {};
}

void Recording::run_maintenance() {
  noted(*history_, "run_maintenance", "", [&] { inner_.run_maintenance(); });
}

namespace {

// A hold of a child's row, noted as the checker reads it when it ends: from when it was
// asked for to its release.
class RecordedHold final : public Hold {
 public:
  RecordedHold(std::unique_ptr<Hold> inner, History& history, std::string key, std::uint64_t since)
      : inner_(std::move(inner)), history_(history), key_(std::move(key)), since_(since) {}
  ~RecordedHold() override {
    inner_.reset();
    if (key_.empty()) return;
    try {
      const std::uint64_t released = history_.now_us();
      history_.add({.kind = HistoryEvent::Kind::Harness,
                    .what = "hold released",
                    .start_us = since_,
                    .end_us = released,
                    .operation = Operation{.kind = Operation::Kind::Hold,
                                           .key = key_,
                                           .invoke = since_,
                                           .complete = released}});
    } catch (...) {  // a destructor must not throw; the hold is only not noted
    }
  }
  RecordedHold(const RecordedHold&) = delete;
  RecordedHold& operator=(const RecordedHold&) = delete;

 private:
  std::unique_ptr<Hold> inner_;
  History& history_;
  std::string key_;
  std::uint64_t since_;
};

}  // namespace

std::unique_ptr<Hold> Recording::hold_child(std::uint64_t child_id) {
  std::string key = key_of_child(child_id);
  const std::uint64_t since = history_->now_us();
  auto held = noted(*history_, "hold_child", "child " + std::to_string(child_id),
                    [&] { return inner_.hold_child(child_id); });
  return std::make_unique<RecordedHold>(std::move(held), *history_, std::move(key), since);
}

std::vector<IdempotencyRecord> Recording::records() { return inner_.records(); }
std::vector<ChildTurn> Recording::children() { return inner_.children(); }
std::optional<UniqueIndex> Recording::unique_key_index() { return inner_.unique_key_index(); }

Durability* Recording::durability() {
  return recorded(inner_.durability(), durability_, durability_inner_, *history_);
}
NodeFaults* Recording::nodes() { return recorded(inner_.nodes(), nodes_, nodes_inner_, *history_); }
Clocks* Recording::clocks() { return recorded(inner_.clocks(), clocks_, clocks_inner_, *history_); }

}  // namespace thm::conformance::checking
