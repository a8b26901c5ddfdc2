#include "thm/cli/conformance.hpp"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <memory>
#include <ostream>

#include "thm/conformance/report.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"
#include "thm/postgres/harness.hpp"
#include "thm/sqlite/harness.hpp"

namespace thm::cli {
namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

// The harness for `queue`; nothing for an unknown name. Throws `std::runtime_error` when
// the named store cannot be used (the message says why).
std::unique_ptr<conformance::Harness> open_queue(const std::string& queue) {
  if (queue == "memory") return std::make_unique<memory::MemoryHarness>();
  if (queue.starts_with("sqlite:") && queue.size() > 7) {
    return sqlite::SqliteHarness::open_scratch(queue.substr(7));
  }
  if (queue.starts_with("postgres:"))
    return postgres::PostgresHarness::open_scratch(queue.substr(9));
  return nullptr;
}

bool known_check(const std::string& id) {
  for (const auto& check : conformance::checks()) {
    if (check.id == id) return true;
  }
  return false;
}

// Folds one more run's entry into the running total of its check.
void accumulate(conformance::CheckReport& total, const conformance::CheckReport& run) {
  auto& t = total.counts;
  const auto& r = run.counts;
  t.attempts += r.attempts;
  t.enqueued += r.enqueued;
  t.already += r.already;
  t.refused += r.refused;
  t.errors += r.errors;
  t.indeterminate += r.indeterminate;
  t.children += r.children;
  t.lost += r.lost;
  t.duplicated += r.duplicated;
  t.unexpected += r.unexpected;
  if (run.verdict == conformance::Verdict::Fail && total.verdict != conformance::Verdict::Fail) {
    total.verdict = conformance::Verdict::Fail;
    total.reason = run.reason;
    total.seed = run.seed;
  }
}

}  // namespace

int run_conformance(const ConformanceRequest& request, std::ostream& out, std::ostream& progress) {
  std::unique_ptr<conformance::Harness> harness;
  try {
    harness = open_queue(request.queue);
  } catch (const std::exception& e) {
    progress << "thm conformance: " << e.what() << "\n";
    return kUsage;
  }
  if (!harness) {
    progress << "thm conformance: unknown queue '" << request.queue
             << "'; this build knows: memory, sqlite:PATH, postgres:CONNINFO\n";
    return kUsage;
  }
  std::vector<std::string> ids = request.only;
  for (const auto& id : ids) {
    if (!known_check(id)) {
      progress << "thm conformance: no check '" << id << "'; checks are";
      for (const auto& check : conformance::checks()) progress << ' ' << check.id;
      progress << "\n";
      return kUsage;
    }
  }
  if (ids.empty()) {
    for (const auto& check : conformance::checks()) ids.emplace_back(check.id);
  }
  if (request.runs < 1 || request.repeat < 1) {
    progress << "thm conformance: --runs and --repeat must be at least 1\n";
    return kUsage;
  }

  // Open the report first, so an unwritable path is known before a long run, not after.
  std::ofstream report_file;
  if (request.report_path) {
    if (!request.report_path->empty())
      report_file.open(*request.report_path, std::ios::binary | std::ios::trunc);
    if (!report_file.is_open()) {
      progress << "thm conformance: cannot write the report to '" << *request.report_path << "'\n";
      return kUsage;
    }
  }

  std::vector<conformance::CheckReport> totals;
  const auto started = std::chrono::steady_clock::now();
  for (int k = 0; k < request.runs; ++k) {
    const conformance::Options options{.seed = request.seed + static_cast<std::uint64_t>(k),
                                       .repeat = request.repeat,
                                       .short_mode = request.short_mode};
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const auto check_started = std::chrono::steady_clock::now();
      const auto report = conformance::run_check(ids[i], *harness, options);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - check_started;
      if (request.runs > 1) progress << "run " << k + 1 << "/" << request.runs << "  ";
      progress << report.id << "  " << name(report.verdict) << "  " << std::fixed
               << std::setprecision(2) << took.count() << " s"
               << (report.reason.empty() ? "" : "  " + report.reason) << "\n";
      if (k == 0) {
        totals.push_back(report);
      } else {
        accumulate(totals[i], report);
      }
    }
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;

  out << "queue " << harness->name() << ", " << request.runs
      << (request.runs == 1 ? " run" : " runs") << " from seed " << request.seed << ", repeat "
      << request.repeat << (request.short_mode ? ", short" : "") << ", " << std::fixed
      << std::setprecision(1) << took.count() << " s\n";
  conformance::print_table(out, totals);

  const int verdict = conformance::passed(totals) ? kOk : kFailed;
  if (request.report_path) {
    report_file << conformance::to_json(harness->name(), totals);
    report_file.close();  // flushes: a full disk shows up here, not never
    if (!report_file) {
      progress << "thm conformance: cannot write the report to '" << *request.report_path << "'\n";
      return verdict == kFailed ? kFailed : kUsage;  // a failed check outranks a lost report
    }
  }
  return verdict;
}

}  // namespace thm::cli
