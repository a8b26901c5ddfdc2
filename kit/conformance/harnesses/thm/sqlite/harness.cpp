#include "thm/sqlite/harness.hpp"

#include <chrono>
#include <utility>

#include "thm/sqlite/client.hpp"

namespace thm::sqlite {

static_assert(SqlReferenceStore<SqliteQueue>);

std::unique_ptr<conformance::Hold> SqliteSetup::hold_child(std::uint64_t child_id) const {
  (void)child_id;
  auto db = conformance::value_or_throw(
      client::Connection::open(where(), client::Access::ReadWrite, std::chrono::seconds(30)),
      "hold_child: opening a connection");
  conformance::value_or_throw(db.execute("BEGIN IMMEDIATE"), "hold_child: taking the write lock");
  // Closing the connection, when the hold ends, rolls the transaction back.
  return std::make_unique<conformance::HoldOf<client::Connection>>(std::move(db));
}

}  // namespace thm::sqlite
