#include "thm/conformance/linearizability.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace thm::conformance {
namespace {

using Kind = Operation::Kind;
using Answer = Operation::Answer;

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kUnreturned = std::numeric_limits<std::uint64_t>::max();

// One key's child turn, as the sequential specification has it after some calls.
struct State {
  enum class Phase : std::uint8_t { None, Pending, Ended };
  bool admitted = false;
  Phase phase = Phase::None;
  std::uint32_t attempts = 0;
  std::int32_t token = -1;  // the live lease's token (index into the key's tokens), or none
  std::int64_t expires = 0;
  std::int64_t now = kNever;  // the store's clock is at least this (it never goes back)
  friend bool operator==(const State&, const State&) = default;
};

// A call of one key's search: the operation and what the search needs of it.
struct Call {
  const Operation* op = nullptr;
  std::size_t index = 0;         // in the history
  std::int32_t token = -1;       // the operation's token, as an index into the key's tokens
  std::int64_t low = kNever;     // the store time it took effect at is at least this
  std::int64_t high = kForever;  // and at most this
};

// The times at which `call` may take effect after `s`, as the closed range [from, to] of
// store time (empty when from > to + slack).
struct Window {
  std::int64_t from;
  std::int64_t to;
};

class Spec {
 public:
  Spec(const LinearizabilityOptions& options) : options_(options) {}

  // The states `call` may leave `s` in; none when no answer of its fits `s`. `identity` is
  // set when the one state is `s` itself and the call would fit any later state as well
  // (`Already`, `Refused`): the search may then take it at once, with no choice to undo.
  std::vector<State> step(const State& s, const Call& call, bool& identity) const {
    identity = false;
    const Operation& op = *call.op;
    switch (op.kind) {
      case Kind::Enqueue:
        return enqueue(s, op, identity);
      case Kind::Claim:
        return claim(s, call);
      case Kind::Renew:
        return renew(s, call);
      case Kind::Complete:
      case Kind::Fail:
        return settle_lease(s, call);
      case Kind::Settle:
        return settle_by_host(s);
      case Kind::Hold:
        break;
    }
    return {};
  }

 private:
  static std::vector<State> enqueue(const State& s, const Operation& op, bool& identity) {
    State admitted = s;
    if (!s.admitted) {
      admitted.admitted = true;
      admitted.phase = State::Phase::Pending;
      admitted.attempts = 0;
      admitted.token = -1;
    }
    switch (op.answer) {
      case Answer::Enqueued:
        if (s.admitted) return {};
        return {admitted};
      case Answer::Already:
        identity = s.admitted;
        if (!s.admitted) return {};
        return {s};
      case Answer::Refused:
        identity = true;
        return {s};
      case Answer::Unknown:
        identity = s.admitted;
        if (s.admitted) return {s};
        return {admitted, s};
      default:
        return {};
    }
  }

  Window window(const State& s, const Call& call) const {
    return {std::max(s.now, call.low), call.high};
  }
  bool fits(const Window& w) const { return w.from <= sat_add(w.to, slack()); }
  // Whether `t`, a store time an answer reports, fits `s` and the call's readings.
  bool fits_exactly(const State& s, const Call& call, std::int64_t t) const {
    return sat_add(t, slack()) >= s.now && sat_add(t, slack()) >= call.low &&
           sat_sub(t, slack()) <= call.high;
  }
  bool attempts_left(const State& s) const {
    return !options_.max_attempts || s.attempts < *options_.max_attempts;
  }
  // Whether the lease may still be live at `t`, or may have ended by then: the two overlap
  // by the slack, so that readings of one instant never contradict each other.
  bool live_at(const State& s, std::int64_t t) const {
    return s.token >= 0 && t < sat_add(s.expires, slack());
  }
  bool expired_at(const State& s, std::int64_t t) const {
    return s.token < 0 || sat_add(t, slack()) >= s.expires;
  }

  std::vector<State> claim(const State& s, const Call& call) const {
    const Operation& op = *call.op;
    if (op.answer == Answer::Nothing) {
      const Window w = window(s, call);
      if (!fits(w)) return {};
      const bool spent = options_.max_attempts ? s.attempts >= *options_.max_attempts
                                               : s.attempts >= 1;  // a limit it did not declare
      const bool claimable =
          s.admitted && s.phase == State::Phase::Pending && !spent && !live_at(s, w.from);
      if (claimable) return {};
      State next = s;
      next.now = w.from;
      return {next};
    }
    if (op.answer != Answer::Leased) return {};
    const std::int64_t t = sat_sub(op.expires_ms, op.duration_ms);
    if (!s.admitted || s.phase != State::Phase::Pending || !attempts_left(s) ||
        op.attempt != s.attempts + 1 || !fits_exactly(s, call, t) || !expired_at(s, t)) {
      return {};
    }
    State next = s;
    next.attempts = op.attempt;
    next.token = call.token;
    next.expires = op.expires_ms;
    next.now = std::max(s.now, t);
    return {next};
  }

  std::vector<State> renew(const State& s, const Call& call) const {
    const Operation& op = *call.op;
    if (op.answer == Answer::Stale) return stale(s, call);
    if (op.answer != Answer::Renewed) return {};
    const std::int64_t t = sat_sub(op.expires_ms, op.duration_ms);
    if (s.phase != State::Phase::Pending || s.token != call.token || !fits_exactly(s, call, t) ||
        !live_at(s, t)) {
      return {};
    }
    State next = s;
    next.expires = op.expires_ms;
    next.now = std::max(s.now, t);
    return {next};
  }

  std::vector<State> settle_lease(const State& s, const Call& call) const {
    const Operation& op = *call.op;
    if (op.answer == Answer::Stale) return stale(s, call);
    if (op.answer != Answer::Settled) return {};
    const Window w = window(s, call);
    if (!fits(w) || s.phase != State::Phase::Pending || s.token != call.token ||
        !live_at(s, w.from)) {
      return {};
    }
    State next = s;
    next.token = -1;
    next.phase =
        op.kind == Kind::Fail && op.back_to_queue ? State::Phase::Pending : State::Phase::Ended;
    next.now = w.from;
    return {next};
  }

  // A refused token: not the live lease's, or its lease has expired by then.
  std::vector<State> stale(const State& s, const Call& call) const {
    const Window w = window(s, call);
    if (!fits(w)) return {};
    State next = s;
    next.now = w.from;
    if (s.phase == State::Phase::Pending && s.token == call.token) {
      const std::int64_t expired = sat_sub(s.expires, slack());
      if (expired > sat_add(w.to, slack())) return {};  // live throughout the call
      next.now = std::max(w.from, expired);
    }
    return {next};
  }

  static std::vector<State> settle_by_host(const State& s) {
    if (!s.admitted) return {};
    State next = s;
    next.phase = State::Phase::Ended;
    next.token = -1;
    return {next};
  }

  std::int64_t slack() const { return options_.clock_slack_ms; }
  static std::int64_t sat_add(std::int64_t a, std::int64_t b) {
    if (b > 0 && a > kForever - b) return kForever;
    return a + b;
  }
  static std::int64_t sat_sub(std::int64_t a, std::int64_t b) {
    if (b > 0 && a < kNever + b) return kNever;
    return a - b;
  }

  const LinearizabilityOptions& options_;
};

// Wing and Gong's search over one key's calls, with Lowe's memo: the calls and returns in
// real-time order as a list; take a call whose answer fits the state (lifting it and its
// return out of the list), and when a return is reached whose call was not taken, undo the
// last choice and try the next.
class Search {
 public:
  Search(const std::vector<Call>& calls, const Spec& spec, std::size_t budget)
      : calls_(calls), spec_(spec), budget_(budget) {
    build_entries();
  }

  enum class Outcome : std::uint8_t { Linearizable, NotLinearizable, OutOfBudget };
  Outcome run();
  // For `NotLinearizable`: the call whose return the longest order could not pass, and how
  // many calls that order took.
  [[nodiscard]] std::size_t culprit() const { return culprit_; }
  [[nodiscard]] std::size_t longest() const { return longest_; }

 private:
  struct Frame {
    std::size_t entry;
    State prior;
    std::size_t alternative;
    bool forced;
  };
  struct Memo {
    std::vector<std::uint64_t> taken;
    State state;
    friend bool operator==(const Memo&, const Memo&) = default;
  };
  struct MemoHash {
    std::size_t operator()(const Memo& m) const noexcept {
      std::size_t h = std::hash<std::int64_t>{}(m.state.expires) ^
                      (std::hash<std::int64_t>{}(m.state.now) << 1);
      h ^= (static_cast<std::size_t>(m.state.admitted) << 3) ^
           (static_cast<std::size_t>(m.state.phase) << 5) ^
           (static_cast<std::size_t>(m.state.attempts) << 7) ^
           (static_cast<std::size_t>(m.state.token + 1) << 17);
      for (const std::uint64_t word : m.taken) h = h * 1099511628211ULL ^ word;
      return h;
    }
  };

  void build_entries();
  bool is_call(std::size_t entry) const { return entry % 2 == 0; }
  std::size_t call_of(std::size_t entry) const { return entry / 2; }
  void lift(std::size_t call_entry);
  void unlift(std::size_t call_entry);
  void set_taken(std::size_t call, bool on) {
    const std::uint64_t bit = std::uint64_t{1} << (call % 64);
    if (on) {
      taken_[call / 64] |= bit;
    } else {
      taken_[call / 64] &= ~bit;
    }
  }
  // Takes the call at `entry` with the first of its answers from `from` on that was not
  // tried from here before; false when none is left.
  bool take(std::size_t entry, std::size_t from);
  // Undoes choices back to the last one with alternatives left; false when none is.
  bool undo(std::size_t& entry, std::size_t& from);

  const std::vector<Call>& calls_;
  const Spec& spec_;
  std::size_t budget_;
  // Entries 2i (call i's invocation) and 2i+1 (its return), linked in time order after a
  // head at index `head_`.
  std::vector<std::size_t> next_;
  std::vector<std::size_t> prev_;
  std::size_t head_ = 0;
  std::vector<std::uint64_t> taken_;
  std::unordered_set<Memo, MemoHash> memo_;
  std::vector<Frame> stack_;
  State state_{};
  std::size_t culprit_ = 0;
  std::size_t longest_ = 0;
  bool stuck_yet_ = false;
  std::size_t stuck_depth_ = 0;
};

void Search::build_entries() {
  const std::size_t n = calls_.size();
  std::vector<std::size_t> order(2 * n);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto time_of = [this](std::size_t entry) {
    const Operation& op = *calls_[entry / 2].op;
    if (entry % 2 == 0) return op.invoke;
    if (op.answer == Answer::Unknown) return kUnreturned;
    return std::max(op.complete, op.invoke);
  };
  // In time order; at one instant invocations first, so calls that touch are concurrent.
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    const auto ta = time_of(a);
    const auto tb = time_of(b);
    if (ta != tb) return ta < tb;
    return (a % 2) < (b % 2);
  });
  head_ = 2 * n;
  next_.assign(2 * n + 1, head_);
  prev_.assign(2 * n + 1, head_);
  std::size_t last = head_;
  for (const std::size_t entry : order) {
    next_[last] = entry;
    prev_[entry] = last;
    last = entry;
  }
  next_[last] = head_;
  prev_[head_] = last;
  taken_.assign((n + 63) / 64, 0);
}

void Search::lift(std::size_t call_entry) {
  for (const std::size_t entry : {call_entry, call_entry + 1}) {
    next_[prev_[entry]] = next_[entry];
    prev_[next_[entry]] = prev_[entry];
  }
}

void Search::unlift(std::size_t call_entry) {
  for (const std::size_t entry : {call_entry + 1, call_entry}) {
    next_[prev_[entry]] = entry;
    prev_[next_[entry]] = entry;
  }
}

bool Search::take(std::size_t entry, std::size_t from) {
  const std::size_t call = call_of(entry);
  bool identity = false;
  const std::vector<State> answers = spec_.step(state_, calls_[call], identity);
  set_taken(call, true);
  for (std::size_t alternative = from; alternative < answers.size(); ++alternative) {
    if (!memo_.insert(Memo{taken_, answers[alternative]}).second) continue;
    stack_.push_back({entry, state_, alternative, identity});
    state_ = answers[alternative];
    lift(entry);
    longest_ = std::max(longest_, stack_.size());
    return true;
  }
  set_taken(call, false);
  return false;
}

bool Search::undo(std::size_t& entry, std::size_t& from) {
  while (!stack_.empty()) {
    const Frame frame = stack_.back();
    stack_.pop_back();
    state_ = frame.prior;
    set_taken(call_of(frame.entry), false);
    unlift(frame.entry);
    if (frame.forced) continue;  // taking it at once was as good as any later place
    entry = frame.entry;
    from = frame.alternative + 1;
    return true;
  }
  return false;
}

Search::Outcome Search::run() {
  std::size_t entry = next_[head_];
  std::size_t from = 0;
  while (next_[head_] != head_) {
    if (memo_.size() > budget_) return Outcome::OutOfBudget;
    if (is_call(entry)) {
      if (take(entry, from)) {
        entry = next_[head_];
      } else {
        entry = next_[entry];
      }
      from = 0;
      continue;
    }
    // A return whose call was not taken: no order so far explains it. The one met after the
    // longest order is the one to show.
    if (!stuck_yet_ || stack_.size() > stuck_depth_) {
      stuck_yet_ = true;
      stuck_depth_ = stack_.size();
      culprit_ = call_of(entry);
    }
    if (!undo(entry, from)) return Outcome::NotLinearizable;
  }
  return Outcome::Linearizable;
}

bool is_lease_call(const Operation& op) {
  return op.kind == Kind::Claim || op.kind == Kind::Renew || op.kind == Kind::Complete ||
         op.kind == Kind::Fail;
}

bool overlap(const Operation& a, const Operation& b) {
  const std::uint64_t a_end = a.answer == Answer::Unknown ? kUnreturned : a.complete;
  const std::uint64_t b_end = b.answer == Answer::Unknown ? kUnreturned : b.complete;
  return a.invoke <= b_end && b.invoke <= a_end;
}

// When `own`, one key's calls, put its child beyond any claim for good: the earliest return
// of a call that ended it (complete, a fail that did not give it back, the host's settle) or
// that took its last attempt. Never, when none did.
std::uint64_t ended_for_good(std::span<const Operation> history,
                             const std::vector<std::size_t>& own,
                             const std::optional<std::uint32_t>& max_attempts) {
  std::uint64_t ended = kUnreturned;
  for (const std::size_t i : own) {
    const Operation& op = history[i];
    const bool ends =
        (op.answer == Answer::Settled && (op.kind == Kind::Complete || op.kind == Kind::Settle ||
                                          (op.kind == Kind::Fail && !op.back_to_queue))) ||
        (op.answer == Answer::Leased && max_attempts && op.attempt >= *max_attempts);
    if (ends) ended = std::min(ended, op.complete);
  }
  return ended;
}

// The calls of one key: its own, and each claim that found nothing while the key's child may
// have been claimable: not before the key's first enqueue began, nor after its child was
// beyond any claim for good (there, nothing is always the answer), nor while another call on
// the key's lease or a hold of its row ran (a claim may skip a child whose row another
// transaction holds, EQ-27). Tokens numbered in order of first use.
std::vector<Call> calls_of(std::span<const Operation> history, const std::vector<std::size_t>& own,
                           const std::vector<std::size_t>& nothing,
                           const std::optional<std::uint32_t>& max_attempts) {
  std::uint64_t first_enqueue = kUnreturned;
  for (const std::size_t i : own) {
    if (history[i].kind == Kind::Enqueue)
      first_enqueue = std::min(first_enqueue, history[i].invoke);
  }
  const std::uint64_t ended = ended_for_good(history, own, max_attempts);
  std::vector<std::size_t> indexes = own;
  for (const std::size_t claim : nothing) {
    const Operation& op = history[claim];
    if (op.complete < first_enqueue || op.invoke > ended) continue;
    const bool skippable = std::ranges::any_of(own, [&](std::size_t i) {
      return (is_lease_call(history[i]) || history[i].kind == Kind::Hold) &&
             overlap(history[i], op);
    });
    if (!skippable) indexes.push_back(claim);
  }
  std::ranges::sort(indexes);
  std::map<std::string, std::int32_t> tokens;
  std::vector<Call> calls;
  for (const std::size_t i : indexes) {
    const Operation& op = history[i];
    if (op.kind == Kind::Hold) continue;
    Call call{.op = &op, .index = i};
    if (!op.token.empty()) {
      call.token =
          tokens.try_emplace(op.token, static_cast<std::int32_t>(tokens.size())).first->second;
    }
    if (op.store_at_least_ms) call.low = *op.store_at_least_ms;
    if (op.answer != Answer::Unknown && op.store_at_most_ms) call.high = *op.store_at_most_ms;
    calls.push_back(call);
  }
  return calls;
}

}  // namespace

LinearizabilityResult check_linearizability(std::span<const Operation> history,
                                            const LinearizabilityOptions& options) {
  std::map<std::string, std::vector<std::size_t>> keys;
  std::vector<std::size_t> nothing;
  bool unknown_claim = false;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const Operation& op = history[i];
    if (op.kind == Kind::Claim && op.key.empty()) {
      if (op.answer == Answer::Nothing) nothing.push_back(i);
      if (op.answer == Answer::Unknown) unknown_claim = true;
      continue;
    }
    if (!op.key.empty()) keys[op.key].push_back(i);
  }
  LinearizabilityResult result;
  const Spec spec(options);
  for (const auto& [key, own] : keys) {
    const bool unknown_lease = std::ranges::any_of(own, [&](std::size_t i) {
      return is_lease_call(history[i]) && history[i].answer == Answer::Unknown;
    });
    if (unknown_lease || (unknown_claim && !nothing.empty())) {
      ++result.unjudged;
      continue;
    }
    const std::vector<Call> calls = calls_of(history, own, nothing, options.max_attempts);
    Search search(calls, spec, options.budget);
    const auto outcome = search.run();
    if (outcome == Search::Outcome::OutOfBudget) {
      ++result.unjudged;
      continue;
    }
    ++result.keys;
    if (outcome == Search::Outcome::Linearizable) continue;
    result.verdict = LinearizabilityResult::Verdict::NotLinearizable;
    result.key = key;
    for (const Call& call : calls) result.operations.push_back(call.index);
    result.culprit = calls[search.culprit()].index;
    result.longest = search.longest();
    return result;
  }
  return result;
}

std::string_view name(Operation::Kind kind) noexcept {
  switch (kind) {
    case Kind::Enqueue:
      return "enqueue";
    case Kind::Claim:
      return "claim";
    case Kind::Renew:
      return "renew";
    case Kind::Complete:
      return "complete";
    case Kind::Fail:
      return "fail";
    case Kind::Settle:
      return "settle";
    case Kind::Hold:
      return "hold";
  }
  return "enqueue";
}

std::string_view name(Operation::Answer answer) noexcept {
  switch (answer) {
    case Answer::Enqueued:
      return "enqueued";
    case Answer::Already:
      return "already";
    case Answer::Refused:
      return "refused";
    case Answer::Leased:
      return "leased";
    case Answer::Nothing:
      return "nothing";
    case Answer::Renewed:
      return "renewed";
    case Answer::Stale:
      return "stale";
    case Answer::Settled:
      return "settled";
    case Answer::Unknown:
      return "unknown";
  }
  return "unknown";
}

std::string describe(const Operation& op) {
  std::string text(name(op.kind));
  if (op.kind == Kind::Claim || op.kind == Kind::Renew) {
    text += " " + std::to_string(op.duration_ms) + " ms";
  }
  text += " -> ";
  text += name(op.answer);
  if (op.answer == Answer::Leased) {
    text += " attempt " + std::to_string(op.attempt) + ", expires " + std::to_string(op.expires_ms);
  } else if (op.answer == Answer::Renewed) {
    text += " to " + std::to_string(op.expires_ms);
  } else if (op.answer == Answer::Settled && op.kind == Kind::Fail) {
    text += op.back_to_queue ? " (back to the queue)" : " (ended)";
  }
  return text;
}

}  // namespace thm::conformance
