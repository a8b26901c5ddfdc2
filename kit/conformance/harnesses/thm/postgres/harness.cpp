#include "thm/postgres/harness.hpp"

#include <utility>

#include "thm/postgres/server.hpp"

namespace thm::postgres {

static_assert(SqlReferenceStore<PostgresQueue>);

PostgresSetup::PostgresSetup() : PostgresSetup(scratch_database(), server_restart_command()) {}

PostgresSetup::PostgresSetup(std::string conninfo, std::string restart_command, Options options)
    : SqlStoreSetup(std::move(conninfo), std::move(options)),
      RestartCommand(std::move(restart_command)),
      max_sessions_(free_sessions(where())) {}

conformance::Capabilities PostgresSetup::capabilities() const {
  conformance::Capabilities declared = SqlStoreSetup::capabilities();
  declared.max_sessions = max_sessions_;
  return declared;
}

std::unique_ptr<conformance::Hold> PostgresSetup::hold_child(std::uint64_t child_id) const {
  return hold_row(where(), {}, child_id);
}

}  // namespace thm::postgres
