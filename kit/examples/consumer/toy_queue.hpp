#pragma once
/// \file
/// `ToyQueue`: the smallest host queue that keeps SPEC §4's contract, written the way a host
/// would write its own on top of `thm::core`: every table behind one mutex. It exists to
/// show the installed package at work; a real host keeps these tables in its database.

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "thm/core.hpp"
#include "thm/store/store.hpp"

namespace toy {

/// One child turn as the toy stores it.
struct Child {
  std::uint64_t id = 0;
  std::string key{};
  thm::MentionTurnRequest request{};
  thm::TurnState state = thm::TurnState::Pending;
};

/// The host's tables: committed replies, the live policy, forbidden pairs, available
/// agents, idempotency records and child turns. Safe to call from many threads.
class ToyQueue final : public thm::MentionTurnQueue {
 public:
  /// SPEC §4's step, all under one lock: re-read the reply, revalidate, then insert once.
  thm::Result<thm::EnqueueOutcome, thm::QueueError> enqueue_once(
      const thm::MentionTurnRequest& request) noexcept override {
    const std::lock_guard lock(mutex_);
    const std::string key = thm::turn_key(request).encoded();
    const auto reply = replies_.find(key);
    if (reply == replies_.end()) {
      return thm::unexpected{
          thm::QueueError{thm::QueueErrorKind::TriggerMissing, "no committed reply"}};
    }
    if (auto mismatch = thm::trigger_mismatch(request, reply->second.author_id,
                                              reply->second.content, reply->second.hop, key)) {
      return thm::unexpected{std::move(*mismatch)};
    }
    if (!policy_.enabled || request.child_hop > policy_.max_hops) {
      return thm::EnqueueOutcome{thm::Refused{thm::EnqueueRefusal::FeatureDisabled}};
    }
    if (forbidden_.contains({request.source_id, request.target_id})) {
      return thm::EnqueueOutcome{thm::Refused{thm::EnqueueRefusal::Unauthorized}};
    }
    if (!available_.contains(request.target_id)) {
      return thm::EnqueueOutcome{thm::Refused{thm::EnqueueRefusal::TargetUnavailable}};
    }
    if (!records_.emplace(key, next_id_).second) return thm::EnqueueOutcome{thm::Already{}};
    children_.emplace(next_id_, Child{next_id_, key, request, thm::TurnState::Pending});
    ++next_id_;
    return thm::EnqueueOutcome{thm::Enqueued{}};
  }

  // ---- the host's own writes ----
  void commit_reply(const thm::CommittedReply& reply) {
    const std::lock_guard lock(mutex_);
    replies_.insert_or_assign(thm::turn_key(reply.conversation, {reply.sequence}).encoded(), reply);
  }
  void set_policy(thm::MentionDispatchPolicy policy) {
    const std::lock_guard lock(mutex_);
    policy_ = policy;
  }
  void set_authorized(const std::string& source_id, const std::string& target_id, bool allowed) {
    const std::lock_guard lock(mutex_);
    if (allowed) {
      forbidden_.erase({source_id, target_id});
    } else {
      forbidden_.emplace(source_id, target_id);
    }
  }
  void set_available(const std::string& agent_id, bool available) {
    const std::lock_guard lock(mutex_);
    if (available) {
      available_.insert(agent_id);
    } else {
      available_.erase(agent_id);
    }
  }

  // ---- a child's life: settled children are pruned, their records stay (SPEC §4) ----
  void settle(std::uint64_t child_id, thm::TurnState state) {
    const std::lock_guard lock(mutex_);
    if (auto child = children_.find(child_id); child != children_.end()) {
      child->second.state = state;
    }
  }
  void remove(std::uint64_t child_id) {
    const std::lock_guard lock(mutex_);
    children_.erase(child_id);
  }
  void prune() {
    const std::lock_guard lock(mutex_);
    std::erase_if(children_,
                  [](const auto& entry) { return entry.second.state != thm::TurnState::Pending; });
  }

  // ---- raw reads ----
  [[nodiscard]] std::map<std::string, std::uint64_t> records() const {
    const std::lock_guard lock(mutex_);
    return records_;
  }
  [[nodiscard]] std::vector<Child> children() const {
    const std::lock_guard lock(mutex_);
    std::vector<Child> rows;
    for (const auto& [id, child] : children_) rows.push_back(child);
    return rows;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, thm::CommittedReply> replies_;
  thm::MentionDispatchPolicy policy_{};
  std::set<std::pair<std::string, std::string>> forbidden_;
  std::set<std::string> available_;
  std::map<std::string, std::uint64_t> records_;
  std::map<std::uint64_t, Child> children_;
  std::uint64_t next_id_ = 1;
};

}  // namespace toy
