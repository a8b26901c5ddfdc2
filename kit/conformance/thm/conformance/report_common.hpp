#pragma once
// What the report writers share (internal to the suite: report.cpp, report_html.cpp,
// report_history.cpp; the checks' timeline text too).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/report.hpp"

namespace thm::conformance::detail {

// The milliseconds every run of `record` took.
std::uint64_t total_ms(const CheckResult& record);
// The command that replays `report`'s run: `run.replay --seed S --check ID`.
std::string replay_of(const RunDescription& run, const CheckRun& report);
// The length of the well-formed UTF-8 sequence at the start of `text`, or 0.
std::size_t utf8_length(std::string_view text);
// `text` as XML (and HTML) character data: the five specials escaped; control characters
// but tab and newline, bytes that are not UTF-8, and the bidirectional controls that reorder
// text (U+202A-U+202E, U+2066-U+2069) replaced by U+FFFD.
std::string xml(std::string_view text);
// `items` joined by `separator`.
std::string joined(const std::vector<std::string>& items, std::string_view separator);
// The names of the capabilities `capabilities` declares, in `capability_names()` order.
std::vector<std::string> declared_names(const Capabilities& capabilities);
// `ms` as seconds with three decimals.
std::string seconds(std::uint64_t ms);
// `bytes` as the suite shows ids and keys: printable ASCII as is, every other byte and the
// backslash as `\xNN`, so that two spellings that look alike do not read alike, and nothing
// is lost.
std::string shown_bytes(std::string_view bytes);

}  // namespace thm::conformance::detail
