// resolve_mentions on arbitrary bodies, valid and invalid UTF-8, against a fixed small team.
// Invariants: never crashes; each mention's text is the body slice at its offset, on UTF-8
// boundaries, outside code, offsets strictly increasing; at most kMentionCap non-quiet;
// core and model agree.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "thm/bridge/bridge.hpp"
#include "thm/mentions/code_mask.hpp"

namespace {

const thm::RosterSnapshot& team() {
  static const thm::RosterSnapshot roster{
      .members = {{.id = "alice", .name = "Alice"}, {.id = "bob"}, {.id = "b"}, {.id = "chief-khaliq"},
                  {.id = "\u0130x"}, {.id = "old"}},
      .people = {{.id = "p1", .label = "Ada Lovelace"}, {.id = "p2", .label = "Ada"}},
      .retired = {"old"}};
  return roster;
}

const thm::DeskSnapshot& desks() {
  static const thm::DeskSnapshot snapshot{.declared = {{.id = "eng", .name = "Engineering", .members = {"alice"}}}};
  return snapshot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  const thm::Roster roster(team());
  const thm::DeskSet desk_set(desks());
  const auto mentions = thm::resolve_mentions(body, std::nullopt, thm::OtherAuthor{}, roster, desk_set);
  const auto code = thm::detail::code_ranges(body);
  std::size_t pinging = 0;
  for (std::size_t i = 0; i < mentions.size(); ++i) {
    const auto& m = mentions[i];
    THM_FUZZ_CHECK(m.offset + m.text.size() <= body.size());
    THM_FUZZ_CHECK(body.compare(m.offset, m.text.size(), m.text) == 0);
    THM_FUZZ_CHECK((static_cast<unsigned char>(body[m.offset]) & 0xC0) != 0x80);
    THM_FUZZ_CHECK(i == 0 || mentions[i - 1].offset < m.offset);
    for (const auto& range : code) THM_FUZZ_CHECK(m.offset < range.begin || m.offset >= range.end);
    pinging += m.quiet ? 0 : 1;
  }
  THM_FUZZ_CHECK(pinging <= thm::kMentionCap);
  const auto model = thm::model::resolve_mentions(body, std::nullopt, {"other", ""}, thm::bridge::to_model(team()),
                                                  thm::bridge::to_model(desks()));
  THM_FUZZ_CHECK(mentions == thm::bridge::to_core(model));
  return 0;
}
