// The typed GoogleTest suite instantiated the way a host would, for the in-memory queue;
// plus a guard that the typed suite lists every check the library implements.
#include <cstdlib>
#include <string>

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

// The environment knobs: bad values are named, not ignored.
TEST(TypedSuiteTest, EnvironmentKnobsAreReadStrictly) {
  setenv("THM_CONFORMANCE_SEED", "42", 1);
  setenv("THM_CONFORMANCE_REPEAT", "3", 1);
  setenv("THM_CONFORMANCE_SHORT", "1", 1);
  const auto good = options_from_environment();
  ASSERT_TRUE(good) << good.error();
  EXPECT_EQ(good->seed, 42U);
  EXPECT_EQ(good->repeat, 3);
  EXPECT_TRUE(good->short_mode);

  setenv("THM_CONFORMANCE_SHORT", "yes", 1);
  const auto bad_short = options_from_environment();
  ASSERT_FALSE(bad_short);
  EXPECT_NE(bad_short.error().find("THM_CONFORMANCE_SHORT"), std::string::npos);

  setenv("THM_CONFORMANCE_SHORT", "0", 1);
  setenv("THM_CONFORMANCE_REPEAT", "0", 1);
  const auto bad_repeat = options_from_environment();
  ASSERT_FALSE(bad_repeat);
  EXPECT_NE(bad_repeat.error().find("THM_CONFORMANCE_REPEAT"), std::string::npos);

  unsetenv("THM_CONFORMANCE_SEED");
  unsetenv("THM_CONFORMANCE_REPEAT");
  unsetenv("THM_CONFORMANCE_SHORT");
}

}  // namespace
}  // namespace thm::conformance
