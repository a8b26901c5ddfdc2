// The store components link and run: a SQLite queue opens a new file (argv[1]), and a
// PostgreSQL queue with no server to reach answers a typed `Unavailable`, never a throw.
#include <iostream>

#include "thm/postgres/postgres_queue.hpp"
#include "thm/sqlite/sqlite_queue.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: stores NEW_SQLITE_FILE\n";
    return 2;
  }
  const auto sqlite = thm::sqlite::SqliteQueue::open(argv[1]);
  if (!sqlite) {
    std::cerr << "stores: sqlite: " << sqlite.error().message << "\n";
    return 1;
  }
  const auto postgres = thm::postgres::PostgresQueue::open("host=/nonexistent port=1");
  if (postgres || postgres.error().kind != thm::QueueErrorKind::Unavailable) {
    std::cerr << "stores: expected postgres to be unavailable\n";
    return 1;
  }
  std::cout << "sqlite opened; postgres: " << thm::name(postgres.error().kind) << "\n";
  return 0;
}
