#include "thm/result.hpp"

#include <gtest/gtest.h>

#include <string>

namespace thm {
namespace {

struct Oops {
  int code = 0;
  friend bool operator==(const Oops&, const Oops&) = default;
};

Result<std::string, Oops> parse(bool ok) {
  if (!ok) return unexpected{Oops{7}};
  return std::string("fine");
}

TEST(ResultTest, HoldsAValueOrAnError) {
  const auto good = parse(true);
  ASSERT_TRUE(good.has_value());
  EXPECT_TRUE(static_cast<bool>(good));
  EXPECT_EQ(*good, "fine");
  EXPECT_EQ(good->size(), 4U);
  const auto bad = parse(false);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error(), Oops{7});
}

TEST(ResultTest, ComparesByContent) {
  EXPECT_EQ(parse(true), parse(true));
  EXPECT_NE(parse(true), parse(false));
}

TEST(ResultTest, MovesOutTheValue) {
  std::string moved = parse(true).value();
  EXPECT_EQ(moved, "fine");
}

TEST(ResultDeathTest, WrongSideAccessStopsTheProcess) {
  EXPECT_DEATH({ (void)parse(false).value(); }, "");
  EXPECT_DEATH({ (void)parse(true).error(); }, "");
}

}  // namespace
}  // namespace thm
