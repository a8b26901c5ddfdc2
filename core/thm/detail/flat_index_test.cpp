#include "thm/detail/flat_index.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace thm::detail {
namespace {

TEST(FlatIndexTest, LoadWordIsTheBytesZeroPadded) {
  const std::string bytes = "\x01\x82\x03\xf4\x05\x06\x07\x88\x09";
  for (std::size_t length = 0; length <= 8; ++length) {
    for (std::size_t from = 0; from + length <= bytes.size(); ++from) {
      std::uint64_t expected = 0;
      std::memcpy(&expected, bytes.data() + from, length);
      EXPECT_EQ(load_word(bytes.data() + from, length), expected) << length << " from " << from;
    }
  }
}

// Keys of every length up to past two words, each found under its own hash and under none
// of the others'.
TEST(FlatIndexTest, FindsEveryKeyByItsHash) {
  std::vector<std::string> keys;
  for (std::size_t length = 0; length <= 20; ++length) {
    keys.push_back(std::string(length, 'a'));
    keys.push_back(std::string(length, 'a') + "b");
    keys.push_back("agent_" + std::to_string(length));
  }
  FlatIndex<std::size_t> index;
  for (std::size_t i = 0; i < keys.size(); ++i) index.try_emplace(keys[i], i);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::size_t* found = index.find(keys[i], hash_key(keys[i]));
    ASSERT_NE(found, nullptr) << keys[i];
    EXPECT_EQ(keys[*found], keys[i]);
  }
  EXPECT_EQ(index.find("agent_21"), nullptr);
}

}  // namespace
}  // namespace thm::detail
