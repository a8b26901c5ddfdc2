// The typed GoogleTest suite instantiated the way a host would, for the in-memory queue;
// plus a guard that the typed suite lists every check the library implements.
#include "thm/conformance/gtest.hpp"
#include "thm/memory/harness.hpp"

namespace thm::conformance {
namespace {

INSTANTIATE_TYPED_TEST_SUITE_P(Memory, QueueConformance, ::testing::Types<memory::MemoryHarness>);

TEST(TypedSuiteTest, HasOneTestPerCheck) {
  const auto* suite = ::testing::UnitTest::GetInstance();
  std::size_t typed = 0;
  for (int i = 0; i < suite->total_test_suite_count(); ++i) {
    const auto* tests = suite->GetTestSuite(i);
    if (std::string_view(tests->name()).starts_with("Memory/QueueConformance"))
      typed += static_cast<std::size_t>(tests->total_test_count());
  }
  EXPECT_EQ(typed, checks().size());
}

}  // namespace
}  // namespace thm::conformance
