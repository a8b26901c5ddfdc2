#include "thm/conformance/report.hpp"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>

namespace thm::conformance {

std::string to_json(std::string_view harness, std::span<const CheckReport> reports) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const CheckReport& r : reports) {
    const Counts& c = r.counts;
    checks.push_back({{"id", r.id},
                      {"title", r.title},
                      {"result", name(r.verdict)},
                      {"reason", r.reason},
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
                        {"unexpected", c.unexpected}}},
                      {"seed", r.seed}});
  }
  const nlohmann::ordered_json document{
      {"harness", harness}, {"passed", passed(reports)}, {"checks", checks}};
  // Reasons quote host messages, which may hold invalid UTF-8: replace rather than throw.
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void print_table(std::ostream& out, std::span<const CheckReport> reports) {
  out << std::left << std::setw(7) << "check" << std::setw(6) << "result" << std::right
      << std::setw(9) << "attempts" << std::setw(9) << "enqueued" << std::setw(8) << "already"
      << std::setw(8) << "refused" << std::setw(7) << "errors" << std::setw(7) << "indet."
      << std::setw(9) << "children" << std::setw(5) << "lost" << std::setw(5) << "dup."
      << std::setw(6) << "unex."
      << "  reason\n";
  for (const CheckReport& r : reports) {
    const Counts& c = r.counts;
    out << std::left << std::setw(7) << r.id << std::setw(6) << name(r.verdict) << std::right
        << std::setw(9) << c.attempts << std::setw(9) << c.enqueued << std::setw(8) << c.already
        << std::setw(8) << c.refused << std::setw(7) << c.errors << std::setw(7) << c.indeterminate
        << std::setw(9) << c.children << std::setw(5) << c.lost << std::setw(5) << c.duplicated
        << std::setw(6) << c.unexpected << "  " << (r.reason.empty() ? r.title : r.reason)
        << (r.verdict == Verdict::Fail ? " (seed " + std::to_string(r.seed) + ")" : "") << '\n';
  }
  const auto count = [&](Verdict v) {
    return std::count_if(reports.begin(), reports.end(),
                         [v](const CheckReport& r) { return r.verdict == v; });
  };
  out << count(Verdict::Pass) << " passed, " << count(Verdict::Fail) << " failed, "
      << count(Verdict::Skip) << " skipped\n";
}

}  // namespace thm::conformance
