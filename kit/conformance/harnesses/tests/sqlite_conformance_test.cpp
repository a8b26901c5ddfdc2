// The SQLite queue against the whole conformance suite, through the typed GoogleTest suite
// a host would instantiate: each test opens a fresh database file.
#include "thm/conformance/gtest.hpp"
#include "thm/sqlite/harness.hpp"

namespace thm::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, QueueConformance, ::testing::Types<sqlite::SqliteHarness>);
}  // namespace thm::conformance
