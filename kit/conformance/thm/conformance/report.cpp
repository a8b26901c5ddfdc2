#include "thm/conformance/report.hpp"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "thm/conformance/report_common.hpp"
#include "thm/conformance/requirements.hpp"

namespace thm::conformance {

namespace {

using Json = nlohmann::ordered_json;

Json counts_json(const Counts& c) {
  return {
      {"attempts", c.attempts},     {"enqueued", c.enqueued}, {"already", c.already},
      {"refused", c.refused},       {"errors", c.errors},     {"indeterminate", c.indeterminate},
      {"children", c.children},     {"lost", c.lost},         {"duplicated", c.duplicated},
      {"unexpected", c.unexpected}, {"faults", c.faults},     {"outage_ms", c.outage_ms}};
}

template <class T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json capabilities_json(const Capabilities& capabilities) {
  Json out = Json::object();
  for (const std::string_view name : capability_names()) {
    out[std::string(name)] = declares(capabilities, name);
  }
  out["max_content_bytes"] = optional_json(capabilities.max_content_bytes);
  out["max_id_bytes"] = optional_json(capabilities.max_id_bytes);
  out["max_attempts"] = optional_json(capabilities.max_attempts);
  out["max_sessions"] = optional_json(capabilities.max_sessions);
  out["election_timeout_ms"] =
      capabilities.election_timeout ? Json(capabilities.election_timeout->count()) : Json(nullptr);
  return out;
}

Json history_json(const std::vector<HistoryEvent>& history) {
  Json events = Json::array();
  for (const HistoryEvent& e : history) {
    events.push_back({{"kind", name(e.kind)},
                      {"lane", optional_json(e.lane)},
                      {"what", e.what},
                      {"subject", e.subject},
                      {"answer", e.answer},
                      {"start_us", e.start_us},
                      {"end_us", e.end_us}});
  }
  return events;
}

}  // namespace

namespace detail {

std::uint64_t total_ms(const CheckResult& record) {
  std::uint64_t sum = 0;
  for (const std::uint64_t ms : record.run_ms) sum += ms;
  return sum;
}

std::string shown_bytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

std::string replay_of(const RunDescription& run, const CheckRun& report) {
  return run.replay + " --seed " + std::to_string(report.seed) + " --check " + report.id;
}

// The length of the well-formed UTF-8 sequence at the start of `text` (Unicode table 3-7),
// or 0 when it is not one.
std::size_t utf8_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

// `text` as XML character data: the five specials escaped, and replaced by U+FFFD every byte
// XML 1.0 cannot carry (control characters but tab and newline, and bytes that are not
// UTF-8; reasons quote host messages) and the bidirectional controls.
std::string xml(std::string_view text) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t length = utf8_length(text);
    const char c = text.front();
    // U+202A–U+202E and U+2066–U+2069 reorder what follows them: a host message could make
    // a reason read as something else (e2 80 aa–ae, e2 81 a6–a9).
    const auto third = length == 3 ? static_cast<unsigned char>(text[2]) : 0;
    const bool reorders =
        length == 3 && ((text.substr(0, 2) == "\xE2\x80" && third >= 0xAA && third <= 0xAE) ||
                        (text.substr(0, 2) == "\xE2\x81" && third >= 0xA6 && third <= 0xA9));
    if (length == 0 || reorders ||
        (length == 1 && static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')) {
      out += kReplacement;
      text.remove_prefix(reorders ? length : 1);
      continue;
    }
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&apos;";
    } else {
      out += text.substr(0, length);
    }
    text.remove_prefix(length);
  }
  return out;
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

std::vector<std::string> declared_names(const Capabilities& capabilities) {
  std::vector<std::string> names;
  for (const std::string_view name : capability_names()) {
    if (declares(capabilities, name)) names.emplace_back(name);
  }
  return names;
}

std::string seconds(std::uint64_t ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << static_cast<double>(ms) / 1000.0;
  return out.str();
}

}  // namespace detail

using detail::declared_names;
using detail::joined;
using detail::replay_of;
using detail::seconds;
using detail::total_ms;
using detail::xml;

std::string to_json(const RunDescription& run, std::span<const CheckResult> records) {
  Json checks = Json::array();
  for (const CheckResult& record : records) {
    const CheckRun& r = record.total;
    Json runs = Json::array();
    for (std::size_t k = 0; k < record.runs.size(); ++k) {
      const CheckRun& each = record.runs[k];
      runs.push_back(
          {{"seed", each.seed},
           {"result", name(each.verdict)},
           {"reason", each.reason},
           {"counts", counts_json(each.counts)},
           {"duration_ms", k < record.run_ms.size() ? record.run_ms[k] : 0},
           {"history", each.verdict == Verdict::Fail ? history_json(each.history) : Json::array()},
           {"history_dropped", each.verdict == Verdict::Fail ? each.history_dropped : 0}});
    }
    checks.push_back(
        {{"id", r.id},
         {"title", r.title},
         {"result", name(r.verdict)},
         {"reason", r.reason},
         {"left_unproven", left_unproven(r)},
         {"counts", counts_json(r.counts)},
         {"seed", r.seed},
         {"duration_ms", total_ms(record)},
         {"replay", r.verdict == Verdict::Fail && !run.replay.empty() ? Json(replay_of(run, r))
                                                                      : Json(nullptr)},
         {"runs", std::move(runs)}});
  }
  const bool failed = std::ranges::any_of(
      records, [](const CheckResult& record) { return record.total.verdict == Verdict::Fail; });
  const Json document{{"harness", run.harness},
                      {"passed", !failed},
                      {"tool", run.tool},
                      {"options",
                       {{"queue", run.queue},
                        {"seed", run.seed},
                        {"runs", run.runs},
                        {"repeat", run.repeat},
                        {"short", run.short_mode},
                        {"checks", run.checks},
                        {"require", run.require}}},
                      {"capabilities", capabilities_json(run.capabilities)},
                      {"duration_ms", run.duration_ms},
                      {"checks", std::move(checks)}};
  // Reasons quote host messages, which may hold invalid UTF-8: replace rather than throw.
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_junit(const RunDescription& run, std::span<const CheckResult> records) {
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const CheckResult& record : records) {
    failures += record.total.verdict == Verdict::Fail ? 1 : 0;
    skipped += record.total.verdict == Verdict::Skip ? 1 : 0;
  }
  const std::string suite = "thm conformance " + run.harness;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"" << xml(suite) << "\" tests=\"" << records.size() << "\" failures=\""
      << failures << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\""
      << seconds(run.duration_ms) << "\">\n"
      << "  <testsuite name=\"" << xml(suite) << "\" tests=\"" << records.size() << "\" failures=\""
      << failures << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\""
      << seconds(run.duration_ms) << "\">\n"
      << "    <properties>\n";
  const auto property = [&](std::string_view key, const std::string& value) {
    out << "      <property name=\"" << xml(key) << "\" value=\"" << xml(value) << "\"/>\n";
  };
  property("tool", run.tool);
  property("queue", run.queue);
  property("seed", std::to_string(run.seed));
  property("runs", std::to_string(run.runs));
  property("repeat", std::to_string(run.repeat));
  property("short", run.short_mode ? "true" : "false");
  property("checks", run.checks.empty() ? std::string("all") : joined(run.checks, ","));
  property("require", joined(run.require, ","));
  property("capabilities", joined(declared_names(run.capabilities), ","));
  out << "    </properties>\n";
  const std::string classname = "conformance." + run.harness;
  for (const CheckResult& record : records) {
    const CheckRun& r = record.total;
    out << "    <testcase classname=\"" << xml(classname) << "\" name=\""
        << xml(r.id + " " + r.title) << "\" time=\"" << seconds(total_ms(record)) << "\"";
    switch (r.verdict) {
      case Verdict::Pass:
        if (!left_unproven(r)) {
          out << "/>\n";
          break;
        }
        out << ">\n      <system-out>" << xml("passed in part, left unproven: " + r.reason)
            << "</system-out>\n    </testcase>\n";
        break;
      case Verdict::Skip:
        out << ">\n      <skipped message=\"" << xml(r.reason) << "\"/>\n    </testcase>\n";
        break;
      case Verdict::Fail:
        out << ">\n      <failure message=\"" << xml(r.reason) << "\" type=\"conformance\">"
            << xml(r.reason + "\nseed " + std::to_string(r.seed) +
                   (run.replay.empty() ? "" : "\nreplay: " + replay_of(run, r)))
            << "</failure>\n    </testcase>\n";
        break;
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

namespace {

constexpr std::size_t kWidth = 100;
constexpr std::string_view kIndent = "       ";

// `text` as lines of at most kWidth columns, each starting with `first` or, after the
// first, with `rest`; a newline in `text` starts a line, and a word longer than half a line
// is cut where a line ends.
void wrapped(std::ostream& out, std::string_view text, std::string_view first,
             std::string_view rest) {
  // A reason may quote lines (an adapter's stderr): each starts a line of its own.
  if (const std::size_t newline = text.find('\n'); newline != std::string_view::npos) {
    wrapped(out, text.substr(0, newline), first, rest);
    wrapped(out, text.substr(newline + 1), rest, rest);
    return;
  }
  std::string line(first);
  bool empty = true;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (word.empty()) continue;
    // A word longer than a line (a quoted line, a path) is cut where the line ends.
    while (line.size() + (empty ? 0 : 1) + word.size() > kWidth && word.size() > kWidth / 2) {
      if (!empty && line.size() + 1 >= kWidth) {  // no room left on this line
        out << line << '\n';
        line = rest;
        empty = true;
        continue;
      }
      const std::size_t room = kWidth - line.size() - (empty ? 0 : 1);
      if (!empty) line += ' ';
      line += word.substr(0, room);
      out << line << '\n';
      word.remove_prefix(room);
      line = rest;
      empty = true;
    }
    if (!empty && line.size() + 1 + word.size() > kWidth) {
      out << line << '\n';
      line = rest;
      empty = true;
    }
    if (!empty) line += ' ';
    line += word;
    empty = false;
  }
  out << line << '\n';
}

}  // namespace

void print_table(std::ostream& out, std::span<const CheckRun> reports, std::string_view replay) {
  constexpr int kCount = 6;
  out << std::left << std::setw(7) << "check" << std::setw(8) << "result" << std::right
      << std::setw(8) << "attempts";
  for (const char* column : {"enq.", "alr.", "ref.", "err.", "ind.", "child", "lost", "dup."}) {
    out << std::setw(kCount) << column;
  }
  out << std::setw(kCount) << "unex." << '\n';
  for (const CheckRun& r : reports) {
    const Counts& c = r.counts;
    out << std::left << std::setw(7) << r.id << std::setw(8) << name(r.verdict) << std::right
        << std::setw(8) << c.attempts;
    for (const std::uint64_t n : {c.enqueued, c.already, c.refused, c.errors, c.indeterminate,
                                  c.children, c.lost, c.duplicated}) {
      out << std::setw(kCount) << n;
    }
    out << std::setw(kCount) << c.unexpected << '\n';
    wrapped(out, r.reason.empty() ? r.title : r.reason, kIndent, kIndent);
    if (r.verdict == Verdict::Fail && !replay.empty()) {
      // One line however long: a command wrapped inside its quotes would not paste.
      out << kIndent << "replay: " << replay << " --seed " << r.seed << " --check " << r.id << '\n';
    }
  }
  wrapped(out,
          "counts: attempts = enqueue calls; enq., alr., ref. = answered Enqueued, Already, "
          "Refused; err., ind. = definite and indeterminate errors; child = child turns stored "
          "after the check; lost = keys answered Enqueued or Already that have no child; dup. = "
          "keys with more than one child or Enqueued answer; unex. = children for keys no call "
          "admitted",
          "", "  ");
  std::string unproven;
  for (const CheckRun& r : reports) {
    if (!left_unproven(r)) continue;
    unproven += (unproven.empty() ? "" : ", ") + r.id +
                (r.verdict == Verdict::Skip ? " (skipped)" : " (passed in part)");
  }
  if (!unproven.empty()) wrapped(out, unproven, "left unproven: ", "  ");
  const auto count = [&](Verdict v) {
    return std::count_if(reports.begin(), reports.end(),
                         [v](const CheckRun& r) { return r.verdict == v; });
  };
  out << count(Verdict::Pass) << " passed, " << count(Verdict::Fail) << " failed, "
      << count(Verdict::Skip) << " skipped\n";
}

}  // namespace thm::conformance
