// A host that vendors thm (add_subdirectory, no install): who a message mentions, and the
// mentions in their wire form (thm::json).
#include <iostream>
#include <string>

#include "thm/core.hpp"
#include "thm/json/json.hpp"

int main() {
  const thm::RosterSnapshot team{
      .members = {{.id = "ann", .name = "Ann"}, {.id = "bob", .name = "Bob"}}};
  const thm::Roster roster(team);
  const thm::DeskSnapshot no_desks{};
  const thm::DeskSet desks(no_desks);
  const std::string message = "@bob can you take the release notes?";
  const auto mentions =
      thm::resolve_mentions(message, std::nullopt, thm::AgentAuthor{"ann"}, roster, desks);
  if (mentions.size() != 1) return 1;
  std::cout << thm::json::encode(mentions.front()) << "\n";
  return 0;
}
