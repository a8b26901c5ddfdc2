// The bridge's direct error conversion is the JSON round trip it replaced: for
// every error variant of the roster, the desks and the responder ladder, `to_model_error`
// gives the model error that rendering the core error with `json::error_value` and reading
// the wire fields back gives. Only this test sees thm::json; the bridge does not link it.

#include "thm/bridge/bridge.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "thm/json/json.hpp"

namespace thm::model {
// A failure shows both model errors as `Variant{key: value, ...}`, not as bytes.
void PrintTo(const Error& error, std::ostream* os) {
  *os << error.variant << '{';
  const char* separator = "";
  for (const auto& [key, value] : error.fields) {
    *os << separator << key << ": " << ::testing::PrintToString(value);
    separator = ", ";
  }
  *os << '}';
}
}  // namespace thm::model

namespace thm {
namespace {

// The text of `value` for a trace line; invalid UTF-8 shows as U+FFFD.
std::string shown(const json::Value& value) {
  return value.dump(-1, ' ', false, json::Value::error_handler_t::replace);
}

// The path the bridge took before it converted directly: the case-file form of the error, every
// field but "variant" and "message", in the order the wire writes them.
model::Error through_json(const json::Value& value) {
  model::Error out{value["variant"].get<std::string>(), {}};
  for (const auto& [key, field] : value.items()) {
    if (key != "variant" && key != "message")
      out.fields.emplace_back(key, field.get<std::string>());
  }
  return out;
}

// The ids used below: ASCII, empty, non-ASCII and invalid UTF-8, so that a field read from
// the wrong member, or bytes changed on the way, show.
const std::string kEmpty;
const std::string kAccented = "Zoë";
const std::string kInvalid = "bad\xff\xfe";

// One sample at least per roster error variant, with distinct field values.
std::vector<RosterError> roster_errors() {
  return {
      EmptyRosterMemberId{},
      DuplicateRosterMemberId{"alice"},
      DuplicateRosterMemberId{kEmpty},
      DuplicateRosterMemberId{kInvalid},
      EmptyPersonId{},
      DuplicatePersonId{"p1"},
      DuplicatePersonId{kAccented},
  };
}

// One sample at least per desk error variant; two-field variants with different values,
// so that swapped fields show.
std::vector<DeskError> desk_errors() {
  return {
      EmptyDeskId{},
      EmptyDeskName{"eng"},
      DuplicateDeskId{"eng"},
      DuplicateDeskId{kInvalid},
      ReservedDeskIdentity{"MAIN"},
      UnknownMemberDesk{"ops"},
      UnknownOrderDesk{"ops"},
      DuplicateDeskOrder{"eng"},
      DuplicateOrderMember{.desk_id = "eng", .agent_id = "bob"},
      UnknownOrderMember{.desk_id = "eng", .agent_id = kAccented},
      UnknownOrderMember{.desk_id = kEmpty, .agent_id = kEmpty},
      IncompleteOrder{.desk_id = "eng", .missing_agent_id = "carol"},
      UnknownDesk{"Ops Desk"},
      AmbiguousDesk{"Support"},
  };
}

// Every roster and desk sample inside a responder error, then the ladder's own variants.
std::vector<ResponderError> responder_errors() {
  std::vector<ResponderError> out;
  for (const RosterError& e : roster_errors()) out.emplace_back(e);
  for (const DeskError& e : desk_errors()) out.emplace_back(e);
  out.emplace_back(DuplicateSelectorCandidate{"bob"});
  out.emplace_back(DuplicateSelectorCandidate{kInvalid});
  out.emplace_back(NoActiveResponder{"orch"});
  return out;
}

// The variant indexes `errors` covers, to prove the samples reach every alternative.
template <class Variant>
std::set<std::size_t> indexes(const std::vector<Variant>& errors) {
  std::set<std::size_t> out;
  for (const Variant& e : errors) out.insert(e.index());
  return out;
}

template <class Variant>
std::set<std::size_t> every_index() {
  std::set<std::size_t> out;
  for (std::size_t i = 0; i < std::variant_size_v<Variant>; ++i) out.insert(i);
  return out;
}

TEST(BridgeTest, SamplesCoverEveryErrorVariant) {
  EXPECT_EQ(indexes(roster_errors()), every_index<RosterError>());
  EXPECT_EQ(indexes(desk_errors()), every_index<DeskError>());
  EXPECT_EQ(indexes(responder_errors()), every_index<ResponderError>());
}

TEST(BridgeTest, RosterErrorsConvertAsTheirJsonFormReads) {
  for (const RosterError& error : roster_errors()) {
    SCOPED_TRACE(shown(json::error_value(error)));
    EXPECT_EQ(bridge::to_model_error(error), through_json(json::error_value(error)));
  }
}

TEST(BridgeTest, DeskErrorsConvertAsTheirJsonFormReads) {
  for (const DeskError& error : desk_errors()) {
    SCOPED_TRACE(shown(json::error_value(error)));
    EXPECT_EQ(bridge::to_model_error(error), through_json(json::error_value(error)));
  }
}

TEST(BridgeTest, ResponderErrorsConvertAsTheirJsonFormReads) {
  for (const ResponderError& error : responder_errors()) {
    SCOPED_TRACE(shown(json::error_value(error)));
    EXPECT_EQ(bridge::to_model_error(error), through_json(json::error_value(error)));
  }
}

// The comparison above is only as good as the JSON side: pin one conversion by hand.
TEST(BridgeTest, TwoFieldErrorKeepsTheCaseFileOrder) {
  const model::Error expected{"IncompleteOrder", {{"desk_id", "eng"}, {"missing_agent_id", "bob"}}};
  EXPECT_EQ(bridge::to_model_error(DeskError{IncompleteOrder{"eng", "bob"}}), expected);
  EXPECT_EQ(bridge::to_model_error(ResponderError{DeskError{IncompleteOrder{"eng", "bob"}}}),
            expected);
}

}  // namespace
}  // namespace thm
