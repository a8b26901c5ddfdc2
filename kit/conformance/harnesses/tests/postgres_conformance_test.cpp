// The PostgreSQL queue against the whole conformance suite, through the typed GoogleTest
// suite a host would instantiate, on the throwaway server CTest starts (fixture `postgres`).
#include "thm/conformance/gtest.hpp"
#include "thm/postgres/harness.hpp"

namespace thm::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, QueueConformance,
                               ::testing::Types<postgres::PostgresHarness>);
}  // namespace thm::conformance
