// EQ-25: random command sequences against the harness and the model host queue
// (`thm::model::TurnQueue`), generated and shrunk by RapidCheck. The model says which answers
// a conforming host may give; after every command the inspector's rows must match the
// model's children exactly.
//
// Not `rc::state`: there a command's effect on the model must follow from the model alone,
// but which child a claim takes is the host's choice. Commands here are plain values the
// trial interprets, feeding each observed answer to the model after checking it is allowed.
#include "thm/conformance/model_check.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "thm/model/queue.hpp"

namespace thm::conformance::detail {
namespace {

using namespace std::chrono_literals;
using Answer = Result<EnqueueOutcome, QueueError>;

// ---- the fixture: few keys and agents, so commands collide ------------------------------

const std::array<std::string, 3> kAgents{"ann", "bob", "cat"};

struct Spot {
  DispatchConversation conversation;
  Sequence sequence;
};
const std::array<Spot, 5> kSpots{{
    {{.desk_id = "eng", .thread_root = std::nullopt}, 1},
    {{.desk_id = "eng", .thread_root = std::nullopt}, 2},
    {{.desk_id = "eng", .thread_root = 7}, 1},
    {{.desk_id = "General", .thread_root = std::nullopt}, 1},
    {{.desk_id = "ops", .thread_root = std::nullopt}, 1},
}};

// Lease lengths and clock steps, in store time. A real store clock gets hour-long leases, so
// that nothing expires while a sequence runs.
constexpr std::array<std::chrono::milliseconds, 3> kLeases{1s, 30s, 5min};
constexpr std::array<std::chrono::milliseconds, 4> kSteps{500ms, 10s, 1min, 10min};
constexpr std::chrono::milliseconds kRealClockLease = 1h;

enum class Op : std::uint8_t {
  Enqueue,
  EditReply,
  SetPolicy,
  FlipAuth,
  ToggleTarget,
  Claim,
  Renew,
  Complete,
  Fail,
  Abandon,
  AdvanceClock,
  Restart,
};

// How an Enqueue departs from the stored reply (`Command::variant`).
enum class Variant : std::uint8_t {
  Exact,
  OtherContent,
  WrongHop,
  OtherSource,
  AliasDesk,
  Unstored
};
constexpr std::size_t kVariants = 6;
// How an EditReply changes it.
enum class Edit : std::uint8_t { Author, Content, Hop, AliasDesk };
constexpr std::size_t kEdits = 4;

// One command. Every index is reduced modulo what it picks from when it runs, so a shrunk
// sequence stays meaningful.
struct Command {
  Op op = Op::Enqueue;
  std::size_t spot = 0;     // kSpots: the key of an Enqueue or EditReply
  std::size_t agent = 0;    // kAgents: target, toggled agent, new author
  std::size_t source = 0;   // kAgents: the source of FlipAuth
  std::size_t variant = 0;  // Variant of an Enqueue
  std::size_t edit = 0;     // Edit of an EditReply
  std::size_t lease = 0;    // which held lease
  std::size_t amount = 0;   // lease length, clock step, new hop, or policy
  bool real_clock = false;  // the store's clock is real: every lease is kRealClockLease
};

// The lease a Claim or Renew asks for: one of kLeases on a clock the suite moves; on a real
// clock an hour, so no lease expires inside a sequence.
std::chrono::milliseconds lease_length(const Command& c) {
  return c.real_clock ? kRealClockLease : kLeases[c.amount % kLeases.size()];
}

constexpr std::array kOpNames{"Enqueue",      "EditReply", "SetPolicy",    "FlipAuth",
                              "ToggleTarget", "Claim",     "Renew",        "Complete",
                              "Fail",         "Abandon",   "AdvanceClock", "Restart"};
constexpr std::array kVariantNames{"exact",        "other content", "wrong hop",
                                   "other source", "alias desk",    "unstored sequence"};
constexpr std::array kEditNames{"author", "content", "hop", "alias desk"};

std::string spot_name(std::size_t spot) {
  const Spot& s = kSpots[spot % kSpots.size()];
  return s.conversation.desk_id +
         (s.conversation.thread_root ? "/t" + std::to_string(*s.conversation.thread_root) : "") +
         "#" + std::to_string(s.sequence);
}

// RapidCheck prints a counterexample with this (found by argument-dependent lookup).
void showValue(const Command& c, std::ostream& os) {
  os << kOpNames[static_cast<std::size_t>(c.op)];
  switch (c.op) {
    case Op::Enqueue:
      os << "(" << spot_name(c.spot) << " -> " << kAgents[c.agent % kAgents.size()] << ", "
         << kVariantNames[c.variant % kVariants] << ")";
      break;
    case Op::EditReply:
      os << "(" << spot_name(c.spot) << ", " << kEditNames[c.edit % kEdits] << ")";
      break;
    case Op::SetPolicy:
      os << "(" << (c.amount % 4 == 0 ? "disabled" : "max_hops " + std::to_string(c.amount % 4))
         << ")";
      break;
    case Op::FlipAuth:
      os << "(" << kAgents[c.source % kAgents.size()] << " -> " << kAgents[c.agent % kAgents.size()]
         << ")";
      break;
    case Op::ToggleTarget:
      os << "(" << kAgents[c.agent % kAgents.size()] << ")";
      break;
    case Op::Claim:
      os << "(" << lease_length(c).count() << " ms)";
      break;
    case Op::Renew:
      os << "(lease " << c.lease << ", " << lease_length(c).count() << " ms)";
      break;
    case Op::Complete:
    case Op::Fail:
    case Op::Abandon:
      os << "(lease " << c.lease << ")";
      break;
    case Op::AdvanceClock:
      os << "(" << kSteps[c.amount % kSteps.size()].count() << " ms)";
      break;
    case Op::Restart:
      break;
  }
}

// ---- conversions to the model's types -----------------------------------------------------

model::DispatchConversation to_model(const DispatchConversation& c) {
  return {c.desk_id, c.thread_root};
}
model::TurnRequest to_model(const MentionTurnRequest& r) {
  return {.trigger_sequence = r.key.trigger_sequence,
          .source_id = r.source_id,
          .target_id = r.target_id,
          .content = r.content,
          .conversation = to_model(r.conversation),
          .child_hop = r.child_hop};
}
model::StoredReply to_model(const CommittedReply& r) {
  return {to_model(r.conversation), r.sequence, r.author_id, r.content, r.hop};
}
model::TurnKey model_key(const MentionTurnRequest& r) {
  return model::turn_key(to_model(r.conversation), r.key.trigger_sequence);
}
model::Millis millis(StoreTime t) { return t.time_since_epoch().count(); }

std::string key_name(const model::TurnKey& key) {
  return key.desk + (key.thread_root ? "/t" + std::to_string(*key.thread_root) : "") + "#" +
         std::to_string(key.sequence);
}

// The answer as the model's token: `enqueued`, `already`, `refused:<reason>`, `error:<kind>`.
std::string token(const Answer& answer) {
  if (!answer) return "error:" + std::string(name(answer.error().kind));
  return std::visit(
      overloaded{[](const Enqueued&) { return std::string("enqueued"); },
                 [](const Already&) { return std::string("already"); },
                 [](const Refused& r) { return "refused:" + std::string(name(r.reason)); }},
      *answer);
}

std::string join(const std::set<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : " or ") + t;
  return out;
}

// The store and the model disagree: the trial fails (and RapidCheck shrinks it) through
// `RC_FAIL` in `check_against_model`'s guard, so this file throws nothing of RapidCheck's.
struct Disagreement {
  std::string what;
};

[[noreturn]] void disagree(const std::string& what) { throw Disagreement{what}; }

// ---- one trial: a fresh store and the model, driven by the same commands -----------------

class Trial {
 public:
  Trial(Harness& harness, const Capabilities& caps, Counts& counts)
      : harness_(harness), caps_(caps), counts_(counts), model_(caps.max_attempts.value_or(~0U)) {
    harness_.reset();
    set_policy(3);
    for (const auto& agent : kAgents) {
      harness_.set_available(agent, true);
      model_.set_available(agent, true);
      available_.insert(agent);
    }
    for (std::size_t spot = 0; spot < kSpots.size(); ++spot) {
      commit({.conversation = kSpots[spot].conversation,
              .sequence = kSpots[spot].sequence,
              .author_id = "ann",
              .content = "@bob take step " + std::to_string(spot),
              .hop = 0},
             spot);
    }
  }
  Trial(const Trial&) = delete;
  Trial& operator=(const Trial&) = delete;
  // `children` in the counts is what the store held after the last trial.
  ~Trial() { counts_.children = children_seen_; }

  void run(const std::vector<Command>& commands) {
    for (std::size_t i = 0; i < commands.size(); ++i) {
      std::ostringstream shown;
      showValue(commands[i], shown);
      where_ = "command " + std::to_string(i + 1) + " " + shown.str() + ": ";
      step(commands[i]);
      compare_store();
      made_progress();
    }
  }

  // Each branch of enqueues on its own session and thread, all released together; then, per
  // key, an order of the calls whose answers the model accepts (the keys do not interact:
  // policy, replies and authorization stay put while the branches run).
  void run_parallel(const std::vector<std::vector<Command>>& branches) {
    where_ = "parallel branches: ";
    std::vector<std::vector<MentionTurnRequest>> requests(branches.size());
    for (std::size_t b = 0; b < branches.size(); ++b) {
      for (const auto& c : branches[b]) requests[b].push_back(request(c));
    }
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t b = 0; b < branches.size(); ++b) sessions.push_back(harness_.open_session());
    std::vector<std::vector<Answer>> answers(branches.size());
    together(branches.size(), [&](std::size_t b) {
      for (const auto& r : requests[b]) answers[b].push_back(call(*sessions[b], r));
    });
    std::map<model::TurnKey, std::vector<std::vector<Seen>>> by_key;
    for (std::size_t b = 0; b < branches.size(); ++b) {
      for (std::size_t i = 0; i < requests[b].size(); ++i) {
        tally(answers[b][i]);
        auto& lanes = by_key[model_key(requests[b][i])];
        lanes.resize(branches.size());
        lanes[b].push_back({to_model(requests[b][i]), token(answers[b][i]), answers[b][i]});
      }
    }
    // The request each key's child holds, as the store shows it after the race.
    std::map<model::TurnKey, model::TurnRequest> stored;
    for (const auto& row : harness_.children())
      stored[model_key(row.request)] = to_model(row.request);
    for (auto& [key, lanes] : by_key) {
      const auto child = stored.find(key);
      Search search{key, lanes, child == stored.end() ? nullptr : &child->second};
      std::vector<std::size_t> next(lanes.size(), 0);
      if (!search.linearize(model_, next)) {
        std::string seen;
        for (std::size_t b = 0; b < lanes.size(); ++b) {
          for (const auto& s : lanes[b]) {
            seen += " [branch " + std::to_string(b + 1) + "] " + s.answer +
                    (s.raw ? "" : " (" + s.raw.error().message + ")");
          }
        }
        disagree(where_ + "no order of the concurrent calls on " + key_name(key) +
                 " gives the answers seen:" + seen);
      }
    }
    compare_store();
  }

 private:
  struct Held {
    std::string token;
    model::TurnKey key;
    std::uint32_t attempt = 0;
  };
  struct Seen {
    model::TurnRequest request;
    std::string answer;
    Answer raw;
  };

  // A depth-first search for an interleaving of one key's lanes (each in its own order)
  // whose answers the model allows, with the child the store shows admitted by the call
  // that answered Enqueued (or left unanswered). Orders that failed are remembered by
  // position and by whether the key already had a child: the rest of the model is fixed.
  struct Search {
    const model::TurnKey& key;
    const std::vector<std::vector<Seen>>& lanes;
    const model::TurnRequest* stored;
    std::set<std::pair<std::vector<std::size_t>, bool>> failed{};

    bool linearize(model::TurnQueue& model, std::vector<std::size_t>& next) {
      bool done = true;
      for (std::size_t b = 0; b < lanes.size(); ++b) done = done && next[b] == lanes[b].size();
      if (done) return true;
      const std::pair<std::vector<std::size_t>, bool> here{next, model.children().contains(key)};
      if (failed.contains(here)) return false;
      for (std::size_t b = 0; b < lanes.size(); ++b) {
        if (next[b] == lanes[b].size()) continue;
        const Seen& s = lanes[b][next[b]];
        for (const std::string& effect : effects(model, s)) {
          model::TurnQueue after = model;
          after.record(s.request, effect);
          ++next[b];
          if (linearize(after, next)) {
            model = std::move(after);
            return true;
          }
          --next[b];
        }
      }
      failed.insert(here);
      return false;
    }

    // What the call `s` may have done to the model, given its answer: nothing, or admitted
    // its child. None when the answer is not allowed at this point of the order.
    std::vector<std::string> effects(const model::TurnQueue& model, const Seen& s) const {
      if (s.answer == "error:unavailable") return {"nothing"};
      const auto allowed = model.answers(s.request);
      const bool admits = stored != nullptr && *stored == s.request;
      if (s.answer == "error:indeterminate") {
        if (allowed.contains("enqueued") && admits) return {"enqueued", "nothing"};
        if (allowed.contains("enqueued") || allowed.contains("already")) return {"nothing"};
        return {};
      }
      if (!allowed.contains(s.answer)) return {};
      if (s.answer == "enqueued" && !admits) return {};
      return {s.answer};
    }
  };

  void step(const Command& c) {
    switch (c.op) {
      case Op::Enqueue:
        return enqueue(c);
      case Op::EditReply:
        return edit(c);
      case Op::SetPolicy:
        return set_policy(static_cast<std::uint32_t>(c.amount % 4));
      case Op::FlipAuth: {
        const auto& source = kAgents[c.source % kAgents.size()];
        const auto& target = kAgents[c.agent % kAgents.size()];
        const bool now_authorized = !forbidden_.insert({source, target}).second;
        if (now_authorized) forbidden_.erase({source, target});
        harness_.set_authorized(source, target, now_authorized);
        return model_.set_authorized(source, target, now_authorized);
      }
      case Op::ToggleTarget: {
        const auto& agent = kAgents[c.agent % kAgents.size()];
        const bool now_available = available_.insert(agent).second;
        if (!now_available) available_.erase(agent);
        harness_.set_available(agent, now_available);
        return model_.set_available(agent, now_available);
      }
      case Op::Claim:
        return claim(c);
      case Op::Renew:
      case Op::Complete:
      case Op::Fail:
        return use_lease(c);
      case Op::Abandon:
        if (!held_.empty())
          held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(c.lease % held_.size()));
        return;
      case Op::AdvanceClock:
        if (caps_.injected_store_clock)
          require(harness_.clocks(), "clocks")
              .advance_store_clock(kSteps[c.amount % kSteps.size()]);
        return;
      case Op::Restart:
        if (caps_.persistent) {
          session_.reset();
          require(harness_.durability(), "durability").reopen();
        }
        return;
    }
  }

  Session& session() {
    if (!session_) session_ = harness_.open_session();
    return *session_;
  }

  void commit(const CommittedReply& reply, std::size_t spot) {
    harness_.commit_reply(reply);
    model_.commit_reply(to_model(reply));
    replies_[spot] = reply;
  }

  void set_policy(std::uint32_t hops) {
    const MentionDispatchPolicy policy{.enabled = hops > 0, .max_hops = hops};
    harness_.set_policy(policy);
    model_.set_policy({policy.enabled, policy.max_hops});
  }

  MentionTurnRequest request(const Command& c) const {
    const CommittedReply& reply = replies_.at(c.spot % kSpots.size());
    MentionTurnRequest r{.key = {reply.sequence},
                         .source_id = reply.author_id,
                         .target_id = kAgents[c.agent % kAgents.size()],
                         .content = reply.content,
                         .conversation = reply.conversation,
                         .child_hop = reply.hop + 1};
    switch (static_cast<Variant>(c.variant % kVariants)) {
      case Variant::Exact:
        break;
      case Variant::OtherContent:
        r.content += " (changed)";
        break;
      case Variant::WrongHop:
        r.child_hop = reply.hop + 2;
        break;
      case Variant::OtherSource:
        r.source_id = reply.author_id == kAgents[0] ? kAgents[1] : kAgents[0];
        break;
      case Variant::AliasDesk:
        r.conversation.desk_id = alias(r.conversation.desk_id);
        break;
      case Variant::Unstored:
        r.key.trigger_sequence = 99;
        break;
    }
    return r;
  }

  // Another spelling of the desk: a General alias for General, another case otherwise
  // (a different desk: desk ids are exact).
  static std::string alias(const std::string& desk) {
    if (desk == "General" || desk == "main" || desk == "")
      return desk == "main" ? "general" : "main";
    std::string upper = desk;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) {
      return static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
    });
    return upper == desk ? desk + "x" : upper;
  }

  // One enqueue. A transient failure is allowed at any time: `unavailable` changed nothing;
  // `indeterminate` may have committed, which the store then shows.
  void enqueue(const Command& c) {
    const MentionTurnRequest r = request(c);
    const model::TurnRequest modelled = to_model(r);
    const auto allowed = model_.answers(modelled);
    const Answer answer = call(session(), r);
    tally(answer);
    const std::string got = token(answer);
    if (got == "error:unavailable") return;
    if (got == "error:indeterminate" &&
        (allowed.contains("enqueued") || allowed.contains("already"))) {
      const auto key = model_key(r);
      if (allowed.contains("enqueued") && !children_under(key).empty())
        model_.record(modelled, "enqueued");
      return;
    }
    if (!allowed.contains(got)) {
      disagree(where_ + "the host answered " + got +
               (answer ? "" : " (" + answer.error().message + ")") + "; the model allows " +
               join(allowed));
    }
    model_.record(modelled, got);
  }

  std::vector<ChildTurn> children_under(const model::TurnKey& key) {
    std::vector<ChildTurn> out;
    for (auto& row : harness_.children()) {
      if (model_key(row.request) == key) out.push_back(std::move(row));
    }
    return out;
  }

  void edit(const Command& c) {
    const std::size_t spot = c.spot % kSpots.size();
    CommittedReply reply = replies_.at(spot);
    switch (static_cast<Edit>(c.edit % kEdits)) {
      case Edit::Author:
        reply.author_id = kAgents[c.agent % kAgents.size()];
        break;
      case Edit::Content:
        reply.content += " (edited)";
        break;
      case Edit::Hop:
        reply.hop = static_cast<std::uint32_t>(c.amount % 4);
        break;
      case Edit::AliasDesk:
        reply.conversation.desk_id = alias(reply.conversation.desk_id);
        break;
    }
    commit(reply, spot);
  }

  // The store's answer `stored` for an expiry `length` after a moment between `before` and
  // `after` (the same moment with an injected clock).
  void require_expiry(StoreTime stored, StoreTime before, StoreTime after,
                      std::chrono::milliseconds length, const std::string& what) const {
    if (stored < before + length || stored > after + length) {
      disagree(where_ + what + " expires at store time " + std::to_string(millis(stored)) +
               " ms, not store time + " + std::to_string(length.count()) + " ms (between " +
               std::to_string(millis(before + length)) + " and " +
               std::to_string(millis(after + length)) + ")");
    }
  }

  // Why the model lets (or does not let) `key` be claimed at `now`, for a report.
  std::string claim_state(const model::TurnKey& key, model::Millis now) const {
    const auto found = model_.children().find(key);
    if (found == model_.children().end()) return key_name(key) + " has no child in the model";
    const model::QueuedChild& child = found->second;
    return key_name(key) + ": " + std::to_string(child.attempts) + " attempt(s)" +
           (child.completed ? ", completed" : "") + (child.failed ? ", failed" : "") +
           (child.lease_expires_at
                ? ", lease expiring at " + std::to_string(*child.lease_expires_at) + " ms"
                : ", no lease") +
           ", store time " + std::to_string(now) + " ms";
  }

  void claim(const Command& c) {
    if (!caps_.leases) return;
    const auto length = lease_length(c);
    const StoreTime before = require(harness_.clocks(), "clocks").store_now();
    const auto claimable = model_.claimable(millis(before));
    const auto claimed = session().claim(length);
    const StoreTime after = require(harness_.clocks(), "clocks").store_now();
    if (!claimed && claimed.error() == LeaseError::Unavailable) return;  // transient
    if (!claimed) disagree(where_ + "the claim was refused: " + std::string(name(claimed.error())));
    if (!claimed->has_value()) {
      if (!claimable.must.empty()) {
        disagree(where_ + "the claim took nothing, but the model can claim " +
                 claim_state(claimable.must.front(), millis(before)));
      }
      return;
    }
    const Lease& lease = **claimed;
    const model::TurnKey key = model_key(lease.request);
    if (std::find(claimable.may.begin(), claimable.may.end(), key) == claimable.may.end()) {
      disagree(where_ + "the claim took a child the model cannot claim: " +
               claim_state(key, millis(before)));
    }
    const std::uint32_t attempt = model_.children().at(key).attempts + 1;
    if (lease.attempt != attempt) {
      disagree(where_ + "the claim reports attempt " + std::to_string(lease.attempt) +
               ", the model " + std::to_string(attempt));
    }
    require_expiry(lease.expires_at, before, after, length, "the lease");
    model_.claim(key, millis(lease.expires_at) - length.count(), length.count());
    held_.push_back({lease.token, key, lease.attempt});
  }

  void use_lease(const Command& c) {
    if (!caps_.leases || held_.empty()) return;
    const Held& held = held_[c.lease % held_.size()];
    const StoreTime before = require(harness_.clocks(), "clocks").store_now();
    const model::Tri live = model_.live(held.key, held.attempt, millis(before));
    const std::string lease_name =
        "the lease of " + key_name(held.key) + ", attempt " + std::to_string(held.attempt);
    // The call failed: fine for a transient failure, or a stale token on a lease that may
    // have ended.
    const auto refused = [&](LeaseError error, const std::string& what) {
      if (error == LeaseError::Unavailable) return;
      if (live == model::Tri::Yes) {
        disagree(where_ + what + " " + lease_name + ", live in the model (" +
                 claim_state(held.key, millis(before)) +
                 "), was refused: " + std::string(name(error)));
      }
      if (error != LeaseError::StaleToken) {
        disagree(where_ + what + " " + lease_name + " got " + std::string(name(error)) +
                 ", not stale_token");
      }
    };
    const auto require_live = [&](const std::string& what) {
      if (live == model::Tri::No) {
        disagree(where_ + what + " " + lease_name + " succeeded, but it ended in the model (" +
                 claim_state(held.key, millis(before)) + ")");
      }
    };
    if (c.op == Op::Renew) {
      const auto length = lease_length(c);
      const auto renewed = session().renew(held.token, length);
      const StoreTime after = require(harness_.clocks(), "clocks").store_now();
      if (!renewed) return refused(renewed.error(), "renewing");
      require_live("renewing");
      require_expiry(*renewed, before, after, length, "the renewed lease");
      return model_.renew(held.key, millis(*renewed) - length.count(), length.count());
    }
    const bool completing = c.op == Op::Complete;
    const auto settled = completing ? session().complete(held.token) : session().fail(held.token);
    const std::string what = completing ? "completing" : "failing";
    if (!settled) return refused(settled.error(), what);
    require_live(what);
    if (completing) {
      model_.complete(held.key);
    } else {
      model_.fail(held.key);
    }
  }

  void tally(const Answer& answer) {
    ++counts_.attempts;
    if (!answer) {
      ++(answer.error().kind == QueueErrorKind::Indeterminate ? counts_.indeterminate
                                                              : counts_.errors);
    } else if (std::holds_alternative<Enqueued>(*answer)) {
      ++counts_.enqueued;
    } else if (std::holds_alternative<Already>(*answer)) {
      ++counts_.already;
    } else {
      ++counts_.refused;
    }
  }

  // The inspector's rows against the model: the same children under the same keys, each
  // with the request first accepted, the attempts and the live lease's expiry; one record
  // per child.
  void compare_store() {
    const auto rows = harness_.children();
    const auto& expected = model_.children();
    std::set<model::TurnKey> keys;
    std::set<std::uint64_t> ids;
    for (const auto& row : rows) {
      const model::TurnKey key = model_key(row.request);
      const auto want = expected.find(key);
      if (want == expected.end()) {
        disagree(where_ + "the store has a child under " + key_name(key) +
                 " the model never admitted");
      }
      if (!keys.insert(key).second)
        disagree(where_ + "the store has two children under " + key_name(key));
      const model::QueuedChild& child = want->second;
      if (to_model(row.request) != child.request) {
        disagree(where_ + "the child under " + key_name(key) +
                 " holds a request other than the one first accepted");
      }
      if (row.attempts != child.attempts) {
        disagree(where_ + "the child under " + key_name(key) + " shows " +
                 std::to_string(row.attempts) + " attempts; the model counts " +
                 std::to_string(child.attempts));
      }
      if (child.lease_expires_at &&
          (!row.lease_expires_at || millis(*row.lease_expires_at) != *child.lease_expires_at)) {
        disagree(where_ + "the child under " + key_name(key) + " shows lease expiry " +
                 (row.lease_expires_at ? std::to_string(millis(*row.lease_expires_at)) + " ms"
                                       : "none") +
                 "; the claim or renewal returned " + std::to_string(*child.lease_expires_at) +
                 " ms");
      }
      ids.insert(row.id);
    }
    children_seen_ = rows.size();
    if (rows.size() != expected.size()) {
      disagree(where_ + "the store has " + std::to_string(rows.size()) + " children; the model " +
               std::to_string(expected.size()));
    }
    const auto records = harness_.records();
    if (records.size() != expected.size()) {
      disagree(where_ + "the store has " + std::to_string(records.size()) +
               " idempotency records; the model " + std::to_string(expected.size()));
    }
    for (const auto& record : records) {
      if (!ids.contains(record.child_id)) {
        disagree(where_ + "idempotency record " + record.key + " names child " +
                 std::to_string(record.child_id) + ", which the store does not have");
      }
    }
  }

  Harness& harness_;
  const Capabilities& caps_;
  Counts& counts_;
  model::TurnQueue model_;
  std::map<std::size_t, CommittedReply> replies_;
  std::set<std::pair<std::string, std::string>> forbidden_;
  std::set<std::string> available_;
  std::vector<Held> held_;
  std::unique_ptr<Session> session_;
  std::string where_;
  std::size_t children_seen_ = 0;
};

// ---- generators ------------------------------------------------------------------------------

// Field values that do not grow with RapidCheck's size (only sequence lengths do).
rc::Gen<std::size_t> below(std::size_t n) {
  return rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, n));
}

// Two enqueues in three match their stored reply; the rest depart from it in one way each.
rc::Gen<std::size_t> variant_gen() {
  return rc::gen::map(below(3 * (kVariants - 1)), [](std::size_t roll) {
    return roll < 2 * (kVariants - 1) ? std::size_t{0} : roll - 2 * (kVariants - 1) + 1;
  });
}

rc::Gen<Op> op_gen(const Capabilities& caps) {
  std::vector<std::pair<std::size_t, Op>> weights{{8, Op::Enqueue},
                                                  {2, Op::EditReply},
                                                  {1, Op::SetPolicy},
                                                  {1, Op::FlipAuth},
                                                  {1, Op::ToggleTarget}};
  if (caps.leases) {
    weights.insert(
        weights.end(),
        {{3, Op::Claim}, {1, Op::Renew}, {2, Op::Complete}, {1, Op::Fail}, {1, Op::Abandon}});
  }
  if (caps.leases && caps.injected_store_clock) weights.push_back({2, Op::AdvanceClock});
  if (caps.persistent) weights.push_back({1, Op::Restart});
  std::size_t total = 0;
  for (const auto& [weight, op] : weights) total += weight;
  return rc::gen::map(below(total), [weights](std::size_t roll) {
    for (const auto& [weight, op] : weights) {
      if (roll < weight) return op;
      roll -= weight;
    }
    return Op::Enqueue;
  });
}

rc::Gen<Command> command_gen(rc::Gen<Op> ops, bool real_clock) {
  return rc::gen::build<Command>(
      rc::gen::set(&Command::op, std::move(ops)),
      rc::gen::set(&Command::spot, below(kSpots.size())),
      rc::gen::set(&Command::agent, below(kAgents.size())),
      rc::gen::set(&Command::source, below(kAgents.size())),
      rc::gen::set(&Command::variant, variant_gen()), rc::gen::set(&Command::edit, below(kEdits)),
      rc::gen::set(&Command::lease, below(4)), rc::gen::set(&Command::amount, below(4)),
      rc::gen::set(&Command::real_clock, rc::gen::just(real_clock)));
}

// ---- running a property: the one place that uses RapidCheck's internals -----------------
// RapidCheck's public entry point, `rc::check`, reads its seed and sizes once per process
// from the RC_PARAMS environment variable, reports through a listener that prints (and
// loads a global configuration that prints a random seed the check does not use), and
// answers only a bool. The suite needs a seed and sizes per run, silence, and the failure's
// description and shrunk counterexample as data for its report; only `rc::detail`'s
// `checkProperty` gives them, so every use of `rc::detail` is in this section.

// How one property run ended.
struct PropertyRun {
  enum class Ending : std::uint8_t { Passed, Failed, GaveUp, Error };
  Ending ending = Ending::Passed;
  std::string description{};  // for Failed: with the passing trials and the counterexample
};

// RapidCheck reports nothing itself: the check's report says it all.
class Silent final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// What an `RC_FAIL(message)` said: RapidCheck describes it as "FILE:LINE:\nRC_FAIL(EXPR)\n\n"
// followed by the message, and a report speaks in the suite's words, not the source's.
std::string failure_message(const std::string& description) {
  const auto blank = description.find("\n\n");
  if (blank == std::string::npos || description.find("RC_FAIL(") > blank) return description;
  return description.substr(blank + 2);
}

// Runs `property` (a callable that draws with `*gen` and fails with `RC_FAIL`) up to
// `max_success` times at sizes up to `max_size`, from `seed`, shrinking a failure.
template <class Property>
PropertyRun run_property(const std::string& name, std::uint64_t seed, int max_success, int max_size,
                         Property property) {
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = max_success;
  params.maxSize = max_size;
  rc::detail::TestMetadata metadata;
  metadata.id = name;
  metadata.description = name;
  Silent silent;
  const auto result = rc::detail::checkProperty(rc::detail::toProperty(std::move(property)),
                                                metadata, params, silent, {});
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    std::string out = "after " + std::to_string(failure.numSuccess) +
                      " passing trials: " + failure_message(failure.description) +
                      "; shrunk counterexample:";
    for (const auto& [type, value] : failure.counterExample) out += " " + value;
    std::replace(out.begin(), out.end(), '\n', ' ');
    return {PropertyRun::Ending::Failed, out};
  }
  rc::detail::GaveUpResult gave_up;
  if (result.match(gave_up)) return {PropertyRun::Ending::GaveUp, gave_up.description};
  rc::detail::Error error("");
  if (result.match(error)) return {PropertyRun::Ending::Error, error.description};
  return {};
}

// EQ-25 against one harness: the trials it runs, and the first harness error they met. A
// harness that throws ends the check as a harness error, neither judged nor shrunk as a
// disagreement: the trials after it pass without running.
class ModelRun {
 public:
  ModelRun(Harness& harness, const Options& options, ModelCheckOutcome& outcome)
      : harness_(harness),
        options_(options),
        outcome_(outcome),
        caps_(harness.capabilities()),
        ops_(op_gen(caps_)),
        real_clock_(!caps_.injected_store_clock) {}

  // Sequential: one session, every command.
  PropertyRun sequential() {
    return run_property(
        "EQ-25 sequential", options_.seed, (options_.short_mode ? 2 : 4) * options_.repeat,
        options_.short_mode ? 15 : 40, [&] {
          const auto commands =
              *rc::gen::container<std::vector<Command>>(command_gen(ops_, real_clock_));
          guarded([&] {
            Trial trial(harness_, caps_, outcome_.counts);
            trial.run(commands);
          });
        });
  }

  // Parallel: a sequential prefix, then 2–4 branches of enqueues racing on the same keys.
  PropertyRun parallel() {
    const bool real_clock = real_clock_;
    return run_property(
        "EQ-25 parallel", options_.seed,
        std::max(1, options_.repeat / (options_.short_mode ? 4 : 1)), options_.short_mode ? 6 : 12,
        [&] {
          const auto prefix =
              *rc::gen::container<std::vector<Command>>(command_gen(ops_, real_clock_));
          const auto branches = *rc::gen::mapcat(rc::gen::inRange(2, 5), [real_clock](int n) {
            return rc::gen::container<std::vector<std::vector<Command>>>(
                static_cast<std::size_t>(n),
                rc::gen::mapcat(rc::gen::inRange(1, 4), [real_clock](int length) {
                  return rc::gen::container<std::vector<Command>>(
                      static_cast<std::size_t>(length),
                      command_gen(rc::gen::just(Op::Enqueue), real_clock));
                }));
          });
          guarded([&] {
            Trial trial(harness_, caps_, outcome_.counts);
            trial.run(prefix);
            trial.run_parallel(branches);
          });
        });
  }

  // True, with the outcome failed, when `run` ended in a harness error or a disagreement.
  bool ended(const PropertyRun& run, const std::string& which) {
    if (harness_error_) {
      outcome_.failed = "harness error: " + *harness_error_;
      return true;
    }
    if (run.ending != PropertyRun::Ending::Failed) return false;
    outcome_.failed = which + ", " + run.description;
    return true;
  }

  // What the sequences could not contain with these capabilities.
  [[nodiscard]] std::string notes() const {
    std::vector<std::string> notes;
    if (!caps_.leases) notes.emplace_back("no claims in the sequences: no `leases`");
    if (caps_.leases && !caps_.injected_store_clock) {
      notes.emplace_back(
          "leases never expire within a sequence: the store clock is real (no "
          "`injected_store_clock`)");
    }
    if (!caps_.persistent) notes.emplace_back("no restarts in the sequences: not `persistent`");
    std::string out;
    for (const auto& note : notes) out += (out.empty() ? "" : "; ") + note;
    return out;
  }

 private:
  template <class Body>
  void guarded(Body&& body) {
    if (harness_error_) return;
    try {
      body();
    } catch (const Disagreement& disagreement) {
      RC_FAIL(disagreement.what);
    } catch (const std::exception& e) {
      harness_error_ = e.what();
    } catch (...) {
      harness_error_ = "an exception that is not a std::exception";
    }
  }

  Harness& harness_;
  const Options& options_;
  ModelCheckOutcome& outcome_;
  const Capabilities caps_;
  const rc::Gen<Op> ops_;
  const bool real_clock_;
  std::optional<std::string> harness_error_;
};

}  // namespace

ModelCheckOutcome check_against_model(Harness& harness, const Options& options) {
  ModelCheckOutcome outcome;
  ModelRun model(harness, options, outcome);
  const PropertyRun sequential = model.sequential();
  if (model.ended(sequential, "sequential")) return outcome;
  const PropertyRun parallel = model.parallel();
  if (model.ended(parallel, "parallel")) return outcome;
  // The first run that gave up, overridden by the first that failed inside RapidCheck.
  for (const auto& [ending, prefix] :
       {std::pair{PropertyRun::Ending::GaveUp, "RapidCheck gave up: "},
        std::pair{PropertyRun::Ending::Error, "RapidCheck failed: "}}) {
    for (const PropertyRun* run : {&sequential, &parallel}) {
      if (run->ending == ending) {
        outcome.failed = prefix + run->description;
        break;
      }
    }
  }
  outcome.note = model.notes();
  return outcome;
}

}  // namespace thm::conformance::detail
