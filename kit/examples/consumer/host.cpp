// A host built against the installed package: one agent reply through `dispatch_mention`
// into the in-memory queue (thm::memory), the outcome in its wire form (thm::json).
#include <iostream>
#include <string>

#include "thm/core.hpp"
#include "thm/json/json.hpp"
#include "thm/memory/memory_queue.hpp"

int main() {
  const thm::RosterSnapshot team{
      .members = {{.id = "ann", .name = "Ann"}, {.id = "bob", .name = "Bob"}}};
  const thm::DeskSnapshot desks{};
  const thm::Roster roster(team);
  const thm::DeskSet desk_set(desks);
  const thm::MentionDispatchPolicy policy{.enabled = true, .max_hops = 2};

  // The reply Ann committed in General (sequence 7), which mentions Bob.
  const std::string reply = "@bob can you take the release notes?";
  const thm::MentionDispatchInput input{
      .key = {.trigger_sequence = 7},
      .conversation = {.desk_id = "General"},
      .author_id = "ann",
      .content = reply,
      .mentions =
          thm::resolve_mentions(reply, std::nullopt, thm::AgentAuthor{"ann"}, roster, desk_set),
      .hop = 0};

  // The store's writes answer a Result like every reference store's; in memory they never
  // fail, but a host on SQLite or PostgreSQL checks each one the same way.
  thm::memory::MemoryQueue queue;
  const bool stored = queue.commit_reply({.conversation = input.conversation,
                                          .sequence = 7,
                                          .author_id = "ann",
                                          .content = reply,
                                          .hop = 0}) &&
                      queue.set_policy(policy) && queue.set_available("bob", true);
  if (!stored) return 1;

  const auto first = thm::dispatch_mention(queue, policy, input, roster);
  const auto again = thm::dispatch_mention(queue, policy, input, roster);
  if (!first || !again) {
    std::cerr << "host: " << thm::to_string(first ? again.error() : first.error()) << "\n";
    return 1;
  }
  std::cout << thm::json::encode(*first) << "\n" << thm::json::encode(*again) << "\n";
  const bool once = *first == thm::MentionDispatchOutcome{thm::Enqueued{}} &&
                    *again == thm::MentionDispatchOutcome{thm::Already{}} &&
                    queue.children()->size() == 1;
  std::cout << (once ? "one child turn for bob" : "FAIL: expected exactly one child") << "\n";
  return once ? 0 : 1;
}
