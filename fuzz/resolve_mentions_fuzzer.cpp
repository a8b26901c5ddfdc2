// resolve_mentions on arbitrary bodies, valid and invalid UTF-8, against a small roster, desk
// set, author and (sometimes) host-supplied mentions drawn from the input's last bytes
// (`Draw`); the rest is the body, so a plain text seed is read mostly as body.
// Invariants: never crashes; each mention's text is the body slice at its offset, on UTF-8
// boundaries, outside code, offsets strictly increasing; at most kMentionCap non-quiet;
// core and model agree, and so do the core's two scan kernels (the fastest this CPU runs and
// the portable one).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "draw.hpp"
#include "fuzz_check.hpp"
#include "thm/bridge/bridge.hpp"
#include "thm/mentions/body_scan.hpp"
#include "thm/mentions/code_mask.hpp"

namespace {

// Moves each drawn mention onto an `@` of the body (the k-th, cyclically) and takes its text
// from there, so supplied mentions often match a real token rather than never.
void snap_to_body(std::vector<thm::Mention>& supplied, const std::string& body) {
  std::vector<std::size_t> signs;
  for (std::size_t at = body.find('@'); at != std::string::npos; at = body.find('@', at + 1))
    signs.push_back(at);
  if (signs.empty()) return;
  for (auto& m : supplied) {
    m.offset = signs[m.offset % signs.size()];
    m.text = body.substr(m.offset, m.text.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider bytes(data, size);
  thm::fuzz::Draw draw(bytes);
  const thm::RosterSnapshot team = draw.roster();
  const thm::DeskSnapshot desks = draw.desks();
  std::optional<std::vector<thm::Mention>> supplied;
  if (draw.count(3) == 0) supplied = draw.mentions();
  thm::MentionAuthor author = thm::OtherAuthor{};
  if (draw.coin())
    author = draw.coin() ? thm::MentionAuthor(thm::AgentAuthor{draw.name()})
                         : thm::PersonAuthor{draw.name()};
  const std::string body = draw.rest();
  if (supplied) snap_to_body(*supplied, body);
  const thm::Roster roster(team);
  const thm::DeskSet desk_set(desks);
  const auto supplied_view =
      supplied ? std::optional<std::span<const thm::Mention>>(*supplied) : std::nullopt;
  // The prepared path first (adr/0016); snapshots no team holds run on the views.
  const auto prepared = thm::Team::prepare(team, desks);
  const auto on_views = thm::resolve_mentions(body, supplied_view, author, roster, desk_set);
  const auto mentions =
      prepared ? thm::resolve_mentions(body, supplied_view, author, *prepared) : on_views;
  THM_FUZZ_CHECK(mentions == on_views);
  {
    const thm::detail::PortableScan portable;
    THM_FUZZ_CHECK(thm::resolve_mentions(body, supplied_view, author, roster, desk_set) ==
                   on_views);
  }
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
  const auto model = thm::model::resolve_mentions(
      body, supplied ? std::optional(thm::bridge::to_model(*supplied)) : std::nullopt,
      thm::bridge::to_model(author), thm::bridge::to_model(team), thm::bridge::to_model(desks));
  THM_FUZZ_CHECK(mentions == thm::bridge::to_core(model));
  return 0;
}
