#include "thm/postgres/harness.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace thm::postgres {
namespace {

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr ? std::string() : std::string(value);
}

// Sessions the server has room for beside the connections open now and the harness's own
// two (the step's and the hook seam's), which open next. A session holds two connections
// too, and kSpareConnections stay free for the harness's reconnects, its run session and
// EQ-23's killed child. Superuser-reserved slots are not counted on.
std::size_t free_sessions(const std::string& conninfo) {
  constexpr long kSpareConnections = 6;
  constexpr long kHarnessConnections = 2;
  PGconn* connection = PQconnectdb(conninfo.c_str());
  PGresult* result = PQexec(
      connection,
      "SELECT current_setting('max_connections')::int"
      " - current_setting('superuser_reserved_connections')::int"
      " - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int");
  const bool ok = PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1;
  // This connection closes below, so its slot is free again.
  const long free =
      ok ? std::strtol(PQgetvalue(result, 0, 0), nullptr, 10) + 1 - kHarnessConnections : 0;
  const std::string message = PQerrorMessage(connection);
  PQclear(result);
  PQfinish(connection);
  if (!ok) throw std::runtime_error("cannot read the server's connection limit: " + message);
  return static_cast<std::size_t>(std::max(0L, (free - kSpareConnections) / 2));
}

// A child's row locked by `SELECT … FOR UPDATE` in a transaction on a connection of its own,
// rolled back (and the connection closed) when this is destroyed.
class RowHold final : public conformance::Hold {
 public:
  RowHold(const std::string& conninfo, std::uint64_t child_id)
      : connection_(PQconnectdb(conninfo.c_str())) {
    const std::string id = std::to_string(child_id);
    const char* values[] = {id.c_str()};
    if (PQstatus(connection_) != CONNECTION_OK || !command("BEGIN")) fail("cannot begin");
    PGresult* held =
        PQexecParams(connection_, "SELECT id FROM thm_child_turn WHERE id = $1::bigint FOR UPDATE",
                     1, nullptr, values, nullptr, nullptr, 0);
    const bool ok = PQresultStatus(held) == PGRES_TUPLES_OK && PQntuples(held) == 1;
    PQclear(held);
    if (!ok) fail("cannot lock child " + id + "'s row");
  }
  ~RowHold() override {
    (void)command("ROLLBACK");
    PQfinish(connection_);
  }
  RowHold(const RowHold&) = delete;
  RowHold& operator=(const RowHold&) = delete;

 private:
  bool command(const char* sql) {
    PGresult* result = PQexec(connection_, sql);
    const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
    PQclear(result);
    return ok;
  }
  [[noreturn]] void fail(const std::string& what) {
    const std::string message = PQerrorMessage(connection_);
    PQfinish(connection_);
    throw std::runtime_error("hold_child: " + what + ": " + message);
  }

  PGconn* connection_;
};

}  // namespace

// The scratch database named by $THM_POSTGRES: never libpq's defaults, which may name a
// real one the suite would wipe.
std::string scratch_database() {
  if (std::getenv("THM_POSTGRES") == nullptr) {
    throw std::runtime_error(
        "THM_POSTGRES is not set: set it to the libpq conninfo of a scratch database the "
        "conformance suite may wipe");
  }
  return environment("THM_POSTGRES");
}

static_assert(SqlReferenceStore<PostgresQueue>);

PostgresSetup::PostgresSetup()
    : PostgresSetup(scratch_database(), environment("THM_POSTGRES_RESTART")) {}

PostgresSetup::PostgresSetup(std::string conninfo, std::string restart_command, Options options)
    : conninfo_(std::move(conninfo)),
      restart_command_(std::move(restart_command)),
      options_(std::move(options)),
      max_sessions_(free_sessions(conninfo_)) {}

Result<std::unique_ptr<PostgresQueue>, QueueError> PostgresSetup::open(TransactionHook hook) const {
  Options options = options_;
  options.hook = std::move(hook);
  return PostgresQueue::open(conninfo_, std::move(options));
}

conformance::Capabilities PostgresSetup::capabilities() const {
  return {.hooks = true,
          .row_locking = true,
          .persistent = true,
          .sql_schema = true,
          .max_content_bytes = options_.max_content_bytes,
          .max_id_bytes = options_.max_id_bytes,
          .leases = true,
          .injected_store_clock = false,
          .skewable_client_clock = true,  // leases are the server's; no clock is read here
          .hold_child = true,
          .max_attempts = options_.max_attempts,
          .max_sessions = max_sessions_};
}

std::unique_ptr<conformance::Hold> PostgresSetup::hold_child(std::uint64_t child_id) const {
  return std::make_unique<RowHold>(conninfo_, child_id);
}

void PostgresSetup::restart() const {
  if (!restart_command_.empty() && std::system(restart_command_.c_str()) != 0) {
    throw std::runtime_error("the restart command failed: " + restart_command_);
  }
}

}  // namespace thm::postgres
