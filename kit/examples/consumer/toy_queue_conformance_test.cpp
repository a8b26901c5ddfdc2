// The conformance suite, from the installed package, against the toy queue: one harness
// and one INSTANTIATE line, as kit/conformance/README.md tells a host to write them.
#include <memory>
#include <string>
#include <vector>

#include "thm/conformance/gtest.hpp"
#include "toy_queue.hpp"

namespace {

class ToySession final : public thm::conformance::Session {
 public:
  explicit ToySession(std::shared_ptr<toy::ToyQueue> queue) : queue_(std::move(queue)) {}
  thm::Result<thm::EnqueueOutcome, thm::QueueError> enqueue_once(
      const thm::MentionTurnRequest& request) override {
    return queue_->enqueue_once(request);
  }

 private:
  std::shared_ptr<toy::ToyQueue> queue_;
};

/// No hooks, leases or persistence: the checks that need them are skipped and say why.
class ToyHarness final : public thm::conformance::Harness {
 public:
  std::string queue_name() const override { return "toy"; }
  thm::conformance::Capabilities capabilities() const override { return {}; }
  void reset() override { queue_ = std::make_shared<toy::ToyQueue>(); }
  std::unique_ptr<thm::conformance::Session> open_session() override {
    return std::make_unique<ToySession>(queue_);
  }
  void commit_reply(const thm::CommittedReply& reply) override { queue_->commit_reply(reply); }
  void set_policy(thm::MentionDispatchPolicy policy) override { queue_->set_policy(policy); }
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override {
    queue_->set_authorized(source_id, target_id, authorized);
  }
  void set_available(const std::string& agent_id, bool available) override {
    queue_->set_available(agent_id, available);
  }
  void settle(std::uint64_t child_id, thm::conformance::Settlement how) override {
    switch (how) {
      case thm::conformance::Settlement::Complete:
        return queue_->settle(child_id, thm::TurnState::Completed);
      case thm::conformance::Settlement::Fail:
        return queue_->settle(child_id, thm::TurnState::Failed);
      case thm::conformance::Settlement::DeadLetter:
        return queue_->settle(child_id, thm::TurnState::Dead);
      case thm::conformance::Settlement::Delete:
        return queue_->remove(child_id);
    }
  }
  void run_maintenance() override { queue_->prune(); }
  std::vector<thm::IdempotencyRecord> records() override {
    std::vector<thm::IdempotencyRecord> rows;
    for (const auto& [key, child_id] : queue_->records()) rows.push_back({key, child_id});
    return rows;
  }
  std::vector<thm::ChildTurn> children() override {
    std::vector<thm::ChildTurn> rows;
    for (const toy::Child& child : queue_->children()) {
      rows.push_back(
          {.id = child.id, .key = child.key, .request = child.request, .state = child.state});
    }
    return rows;
  }

 private:
  std::shared_ptr<toy::ToyQueue> queue_ = std::make_shared<toy::ToyQueue>();
};

}  // namespace

namespace thm::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(Toy, QueueConformance, ::testing::Types<ToyHarness>);
}
