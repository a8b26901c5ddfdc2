#pragma once
// Structured fuzz inputs: a small team, mentions and hops drawn from the fuzzer's bytes with
// LLVM's FuzzedDataProvider. Names come from a short pool of colliding spellings (case
// twins, prefixes, reserved words, non-ASCII letters whose lower-casing changes length), so
// random bytes keep hitting the interesting collisions instead of inventing fresh ids.
//
// FuzzedDataProvider takes integers from the end of the input and strings from the front;
// a target that draws its team first and its body last therefore reads a plain text seed
// mostly as body.

#include <fuzzer/FuzzedDataProvider.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thm/core.hpp"

namespace thm::fuzz {

inline constexpr std::array<std::string_view, 18> kNames{
    "alice",    "Alice",    "bob",          "b",    "chief-khaliq", "chief",
    "\u0130x",  "i\u0307x", "old",          "eng",  "Engineering",  "here",
    "everyone", "Ada",      "Ada Lovelace", "orch", "\u6771\u4EAC", ""};

class Draw {
 public:
  explicit Draw(FuzzedDataProvider& bytes) : bytes_(bytes) {}

  [[nodiscard]] bool coin() { return bytes_.ConsumeBool(); }
  [[nodiscard]] std::size_t count(std::size_t most) {
    return bytes_.ConsumeIntegralInRange<std::size_t>(0, most);
  }
  [[nodiscard]] std::string name() { return std::string(bytes_.PickValueInArray(kNames)); }
  [[nodiscard]] std::optional<std::string> maybe_name() {
    return coin() ? std::optional<std::string>(name()) : std::nullopt;
  }
  [[nodiscard]] std::vector<std::string> names(std::size_t most) {
    std::vector<std::string> out(count(most));
    for (auto& n : out) n = name();
    return out;
  }

  // A hop or max_hops: mostly small, sometimes at the top of u32 to reach the overflow guard.
  [[nodiscard]] std::uint32_t hop() {
    constexpr std::uint32_t top = std::numeric_limits<std::uint32_t>::max();
    switch (bytes_.ConsumeIntegralInRange(0, 3)) {
      case 0:
        return top - bytes_.ConsumeIntegralInRange<std::uint32_t>(0, 2);
      case 1:
        return bytes_.ConsumeIntegral<std::uint32_t>();
      default:
        return bytes_.ConsumeIntegralInRange<std::uint32_t>(0, 4);
    }
  }

  // Mostly valid (distinct ids), sometimes not: duplicates and empty ids come from the pool.
  [[nodiscard]] RosterSnapshot roster() {
    RosterSnapshot roster;
    roster.members.resize(count(6));
    for (auto& m : roster.members) m = {.id = name(), .name = maybe_name()};
    roster.people.resize(count(3));
    for (auto& p : roster.people) p = {.id = name(), .label = name()};
    roster.retired = names(2);
    roster.tombstoned = names(2);
    return roster;
  }

  [[nodiscard]] DeskSnapshot desks() {
    DeskSnapshot desks;
    desks.declared.resize(count(3));
    for (auto& d : desks.declared) {
      d = {.id = name(),
           .name = name(),
           .description = std::nullopt,
           .members = names(4),
           .responder_mode = coin() ? ResponderMode::Auto : ResponderMode::Lead};
    }
    desks.added.resize(count(1));
    for (auto& d : desks.added) d = {.id = name(), .name = name(), .members = names(2)};
    desks.member_additions.resize(count(2));
    for (auto& a : desks.member_additions) a = {.desk_id = name(), .agent_id = name()};
    desks.orders.resize(count(1));
    for (auto& o : desks.orders) o = {.desk_id = name(), .ordered = names(3)};
    desks.retired = names(1);
    desks.tombstoned = names(1);
    return desks;
  }

  [[nodiscard]] MentionTarget target() {
    switch (bytes_.ConsumeIntegralInRange(0, 5)) {
      case 0:
        return PersonTarget{name()};
      case 1:
        return DeskTarget{name()};
      case 2:
        return EveryoneTarget{};
      default:
        return AgentTarget{name()};
    }
  }

  // Resolved mentions as a host hands them over: used as given, so offsets may repeat or
  // run backwards and the text need not match any body.
  [[nodiscard]] std::vector<Mention> mentions() {
    std::vector<Mention> out(count(4));
    for (auto& m : out) {
      m.target = target();
      m.text = "@" + name();
      m.offset = bytes_.ConsumeIntegralInRange<std::size_t>(0, 40);
      m.quiet = bytes_.ConsumeIntegralInRange(0, 3) == 0;
    }
    return out;
  }

  [[nodiscard]] std::string rest() { return bytes_.ConsumeRemainingBytesAsString(); }
  [[nodiscard]] std::string text(std::size_t most) {
    return bytes_.ConsumeRandomLengthString(most);
  }

 private:
  FuzzedDataProvider& bytes_;
};

}  // namespace thm::fuzz
