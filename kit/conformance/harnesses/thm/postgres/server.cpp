#include "thm/postgres/server.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "thm/conformance/store_harness.hpp"
#include "thm/postgres/client.hpp"

namespace thm::postgres {

std::string scratch_database() {
  const char* conninfo = std::getenv("THM_POSTGRES");
  if (conninfo == nullptr) {
    throw std::runtime_error(
        "THM_POSTGRES is not set: set it to the libpq conninfo of a scratch database the "
        "conformance suite may wipe");
  }
  return conninfo;
}

std::string server_restart_command() {
  const char* command = std::getenv("THM_POSTGRES_RESTART");
  return command == nullptr ? std::string() : std::string(command);
}

std::size_t free_sessions(const std::string& conninfo) {
  constexpr std::int64_t kSpareConnections = 6;
  constexpr std::int64_t kHarnessConnections = 2;
  const auto db = conformance::value_or_throw(client::Connection::connect(conninfo),
                                              "reading the server's connection limit");
  const client::Rows free = db->execute(
      "SELECT (current_setting('max_connections')::int"
      " - current_setting('superuser_reserved_connections')::int"
      " - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'))::bigint");
  if (!free.ok() || free.size() != 1) {
    throw std::runtime_error("cannot read the server's connection limit: " + db->last_message());
  }
  // This connection closes on return, so its slot is free again.
  const std::int64_t room = free.integer(0, 0) + 1 - kHarnessConnections;
  return static_cast<std::size_t>(std::max<std::int64_t>(0, (room - kSpareConnections) / 2));
}

std::unique_ptr<conformance::Hold> hold_row(const std::string& conninfo,
                                            const std::string& search_path,
                                            std::uint64_t child_id) {
  const std::string id = std::to_string(child_id);
  auto db = conformance::value_or_throw(client::Connection::connect(conninfo, search_path),
                                        "hold_child: connecting");
  const client::Rows held =
      db->script("BEGIN; SELECT id FROM thm_child_turn WHERE id = " + id + " FOR UPDATE");
  if (!held.ok() || held.size() != 1) {
    throw std::runtime_error("hold_child: cannot lock child " + id +
                             "'s row: " + db->last_message());
  }
  // Closing the connection, when the hold ends, rolls the transaction back.
  return std::make_unique<conformance::HoldOf<std::unique_ptr<client::Connection>>>(std::move(db));
}

}  // namespace thm::postgres
