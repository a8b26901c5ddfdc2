#include "thm/conformance/report.hpp"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace thm::conformance {

std::string to_json(std::string_view harness, std::span<const CheckReport> reports) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const CheckReport& r : reports) {
    const Counts& c = r.counts;
    checks.push_back({{"id", r.id},
                      {"title", r.title},
                      {"result", name(r.verdict)},
                      {"reason", r.reason},
                      {"left_unproven", left_unproven(r)},
                      {"counts",
                       {{"attempts", c.attempts},
                        {"enqueued", c.enqueued},
                        {"already", c.already},
                        {"refused", c.refused},
                        {"errors", c.errors},
                        {"indeterminate", c.indeterminate},
                        {"children", c.children},
                        {"lost", c.lost},
                        {"duplicated", c.duplicated},
                        {"unexpected", c.unexpected},
                        {"faults", c.faults},
                        {"outage_ms", c.outage_ms}}},
                      {"seed", r.seed}});
  }
  const nlohmann::ordered_json document{
      {"harness", harness}, {"passed", passed(reports)}, {"checks", checks}};
  // Reasons quote host messages, which may hold invalid UTF-8: replace rather than throw.
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
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

void print_table(std::ostream& out, std::span<const CheckReport> reports, std::string_view replay) {
  constexpr int kCount = 6;
  out << std::left << std::setw(7) << "check" << std::setw(8) << "result" << std::right
      << std::setw(8) << "attempts";
  for (const char* column : {"enq.", "alr.", "ref.", "err.", "ind.", "child", "lost", "dup."}) {
    out << std::setw(kCount) << column;
  }
  out << std::setw(kCount) << "unex." << '\n';
  for (const CheckReport& r : reports) {
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
  for (const CheckReport& r : reports) {
    if (!left_unproven(r)) continue;
    unproven += (unproven.empty() ? "" : ", ") + r.id +
                (r.verdict == Verdict::Skip ? " (skipped)" : " (passed in part)");
  }
  if (!unproven.empty()) wrapped(out, unproven, "left unproven: ", "  ");
  const auto count = [&](Verdict v) {
    return std::count_if(reports.begin(), reports.end(),
                         [v](const CheckReport& r) { return r.verdict == v; });
  };
  out << count(Verdict::Pass) << " passed, " << count(Verdict::Fail) << " failed, "
      << count(Verdict::Skip) << " skipped\n";
}

}  // namespace thm::conformance
