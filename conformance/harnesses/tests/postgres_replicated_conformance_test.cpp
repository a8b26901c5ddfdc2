// The PostgreSQL queue on a primary and a synchronous standby (issue 24) against the whole
// conformance suite, the node-loss checks EQ-28…EQ-30 included, through the typed GoogleTest
// suite, on the pair CTest starts (fixture `postgres_pair_sync`).
#include "thm/conformance/gtest.hpp"
#include "thm/postgres/replicated.hpp"

namespace thm::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(ReplicatedPostgres, QueueConformance,
                               ::testing::Types<postgres::ReplicatedPostgresHarness>);
}  // namespace thm::conformance
