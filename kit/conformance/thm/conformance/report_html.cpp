// The conformance report as one self-contained page (queue-conformance.md §8, adr/0020):
// inline CSS and SVG, no script, nothing fetched. The summary and what the run left
// unproven come first, then a table of every check, then each failure with its replay
// command and the timeline of what happened since the check last reset the store.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "thm/conformance/report.hpp"
#include "thm/conformance/report_common.hpp"

namespace thm::conformance {

namespace {

using detail::replay_of;
using detail::total_ms;
using detail::xml;

constexpr std::string_view kStyle = R"(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d232b;
       margin: 0 auto; padding: 24px 32px 64px; max-width: 1100px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 32px 0 8px; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 13px; }
.verdict { font-size: 18px; font-weight: 600; padding: 10px 14px; border-radius: 6px; margin: 12px 0; }
.verdict.fail { background: #fde8e8; color: #8a1c1c; border: 1px solid #f3b4b4; }
.verdict.pass { background: #e6f4ea; color: #1e5c31; border: 1px solid #a8d5b5; }
dl.run { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.run dt { color: #5b6470; } dl.run dd { margin: 0; overflow-wrap: anywhere; }
ul.unproven li { margin: 4px 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
th { background: #f4f5f7; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.result { font-weight: 600; white-space: nowrap; } .result.fail { color: #b3261e; } .result.pass { color: #1e7a3a; }
.result.skip { color: #8a6d00; }
section.failure { border-left: 4px solid #b3261e; padding: 4px 0 4px 16px; margin: 28px 0; }
p.reason { font-size: 16px; }
pre.replay { background: #1d232b; color: #f4f5f7; padding: 10px 12px; border-radius: 6px;
             white-space: pre-wrap; overflow-wrap: anywhere; user-select: all; }
figure.timeline { margin: 12px 0; overflow-x: auto; } figcaption { font-size: 13px; color: #3b434d; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin: 0 4px 0 12px;
          border: 1px solid #0003; }
svg text { font: 11px system-ui, sans-serif; fill: #1d232b; }
svg .lane-label { font-weight: 600; } svg .tick { fill: #5b6470; } svg .grid { stroke: #e3e6ea; }
svg .bar-label { fill: #fff; font-size: 10px; pointer-events: none; }
.enqueued { fill: #2e7d32; } .already { fill: #1565c0; } .refused { fill: #78909c; }
.error { fill: #c62828; } .indeterminate { fill: #ef6c00; } .lease { fill: #6a1b9a; }
.host { fill: #37474f; } .pause { fill: url(#hatch); stroke: #8a6d00; stroke-width: 1; }
.hook-failed { fill: #b3261e; stroke: #5f0f0a; stroke-width: 1; }
.repeat { stroke: #b3261e; stroke-width: 3; }
details { margin: 8px 0; } summary { cursor: pointer; color: #1565c0; }
table.events td { font-size: 13px; }
)";

// A number of microseconds as a short label: `850 µs`, `12.5 ms`, `3.2 s`.
std::string duration_label(double us) {
  char text[32];
  if (us < 1000.0) {
    std::snprintf(text, sizeof text, "%.0f \xC2\xB5s", us);
  } else if (us < 1e6) {
    std::snprintf(text, sizeof text, "%g ms", std::round(us / 10.0) / 100.0);
  } else {
    std::snprintf(text, sizeof text, "%g s", std::round(us / 1e4) / 100.0);
  }
  return text;
}

// The class an event's bar is drawn with.
std::string_view bar_class(const HistoryEvent& e) {
  if (e.kind == HistoryEvent::Kind::Pause) return "pause";
  if (e.kind == HistoryEvent::Kind::Harness)
    return e.answer.starts_with("threw") ? "error" : "host";
  if (e.what != "enqueue_once") return e.answer.starts_with("error") ? "error" : "lease";
  if (e.answer == "Enqueued") return "enqueued";
  if (e.answer == "Already") return "already";
  if (e.answer.starts_with("Refused")) return "refused";
  if (e.answer.starts_with("error indeterminate")) return "indeterminate";
  return "error";
}

std::string lane_name(const HistoryEvent& e) {
  if (e.kind == HistoryEvent::Kind::Harness) return "host's writes";
  if (!e.lane) return "hook, session unknown";
  return "session " + std::to_string(*e.lane);
}

// The most session rows a timeline draws: a long check (EQ-10 opens two sessions per
// repetition) keeps its last ones, and the table under it lists every event.
constexpr std::size_t kMostRows = 40;

// Where a timeline puts things: its size, and what it draws from a history.
constexpr double kWidth = 1000;
constexpr double kGutter = 170;
constexpr double kRight = 16;
constexpr double kAxis = 30;
constexpr double kLane = 22;
constexpr double kBar = 14;
constexpr double kPlot = kWidth - kGutter - kRight;

// The layout of one timeline: the sessions drawn, by number (the last `kMostRows` of those
// with an event), the events drawn, which rows there are and the time they span.
struct Lanes {
  std::vector<std::uint32_t> sessions;
  std::size_t left_out = 0;  // the earliest sessions, not drawn
  std::vector<const HistoryEvent*> drawn;
  bool host = false;     // a row for the host's writes
  bool unknown = false;  // a row for pauses whose session is unknown
  std::uint64_t first = UINT64_MAX;
  std::uint64_t last = 0;

  [[nodiscard]] std::optional<std::size_t> session_row(std::uint32_t lane) const {
    const auto at = std::ranges::lower_bound(sessions, lane);
    if (at == sessions.end() || *at != lane) return std::nullopt;
    return static_cast<std::size_t>(at - sessions.begin());
  }
  [[nodiscard]] double host_rows() const { return host ? 1 : 0; }
  [[nodiscard]] double rows() const {
    return host_rows() + static_cast<double>(sessions.size()) + (unknown ? 1 : 0);
  }
  [[nodiscard]] double height() const { return kAxis + rows() * kLane + 8; }
  [[nodiscard]] double span() const {
    return static_cast<double>(std::max<std::uint64_t>(last - first, 1));
  }
  [[nodiscard]] double x(double us) const {
    return kGutter + (us - static_cast<double>(first)) / span() * kPlot;
  }
  [[nodiscard]] double row_of(const HistoryEvent& e) const {
    if (e.kind == HistoryEvent::Kind::Harness) return 0;
    if (!e.lane) return host_rows() + static_cast<double>(sessions.size());
    return host_rows() + static_cast<double>(*session_row(*e.lane));
  }
};

// What a timeline of `history` draws: the sessions' events and, from the first of them on,
// the others.
Lanes lanes_of(const std::vector<HistoryEvent>& history) {
  Lanes lanes;
  for (const HistoryEvent& e : history) {
    if (e.lane) lanes.sessions.push_back(*e.lane);
  }
  std::ranges::sort(lanes.sessions);
  lanes.sessions.erase(std::unique(lanes.sessions.begin(), lanes.sessions.end()),
                       lanes.sessions.end());
  lanes.left_out = lanes.sessions.size() > kMostRows ? lanes.sessions.size() - kMostRows : 0;
  lanes.sessions.erase(lanes.sessions.begin(),
                       lanes.sessions.begin() + static_cast<std::ptrdiff_t>(lanes.left_out));
  for (const HistoryEvent& e : history) {
    if (lanes.left_out == 0 || (e.lane && lanes.session_row(*e.lane))) {
      lanes.first = std::min(lanes.first, e.start_us);
    }
  }
  lanes.last = lanes.first;
  for (const HistoryEvent& e : history) {
    if (e.lane ? !lanes.session_row(*e.lane) : e.start_us < lanes.first) continue;
    lanes.drawn.push_back(&e);
    lanes.host = lanes.host || e.kind == HistoryEvent::Kind::Harness;
    lanes.unknown = lanes.unknown || (e.kind == HistoryEvent::Kind::Pause && !e.lane);
    lanes.last = std::max({lanes.last, e.end_us, e.start_us});
  }
  return lanes;
}

// The time axis: about eight ticks at 1, 2 or 5 times a power of ten, and the rows' labels.
void axis_and_labels(std::ostream& out, const Lanes& lanes) {
  const double rough = lanes.span() / 8;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= rough) break;
  }
  for (double t = std::ceil(static_cast<double>(lanes.first) / step) * step;
       t <= static_cast<double>(lanes.last) + step / 1000; t += step) {
    out << "<line class=\"grid\" x1=\"" << lanes.x(t) << "\" y1=\"" << kAxis - 6 << "\" x2=\""
        << lanes.x(t) << "\" y2=\"" << lanes.height() - 4 << "\"/><text class=\"tick\" x=\""
        << lanes.x(t) << "\" y=\"" << kAxis - 10 << "\" text-anchor=\"middle\">"
        << xml(duration_label(t)) << "</text>\n";
  }
  const auto label = [&](double row, const std::string& text) {
    out << "<text class=\"lane-label\" x=\"" << kGutter - 8 << "\" y=\""
        << kAxis + row * kLane + kLane / 2 + 4 << "\" text-anchor=\"end\">" << xml(text)
        << "</text>\n";
  };
  if (lanes.host) label(0, "host's writes");
  for (std::size_t s = 0; s < lanes.sessions.size(); ++s) {
    label(lanes.host_rows() + static_cast<double>(s),
          "session " + std::to_string(lanes.sessions[s]));
  }
  if (lanes.unknown) label(lanes.rows() - 1, "hook, session unknown");
}

// One event's bar, with its title. A second Enqueued answer for one request is what most
// races that fail have done: it is outlined, and its title names the first.
void bar(std::ostream& out, const Lanes& lanes, const HistoryEvent& e,
         std::map<std::string, const HistoryEvent*>& first_enqueued) {
  const double left = lanes.x(static_cast<double>(e.start_us));
  const double width =
      std::max(3.0, lanes.x(static_cast<double>(std::max(e.end_us, e.start_us))) - left);
  const bool pause = e.kind == HistoryEvent::Kind::Pause;
  // A pause is drawn inside the call it holds up, so the call shows around it.
  const double height = pause ? kBar - 6 : kBar;
  const double top = kAxis + lanes.row_of(e) * kLane + (kLane - height) / 2;
  const std::string_view cls = pause && e.answer != "continued" ? "hook-failed" : bar_class(e);
  std::string title = lane_name(e) + ": " + (pause ? "hook at " : "") + e.what +
                      (e.subject.empty() ? "" : " (" + e.subject + ")") +
                      (e.answer.empty() ? "" : " \xE2\x86\x92 " + e.answer) + ", " +
                      duration_label(static_cast<double>(e.start_us)) + " to " +
                      duration_label(static_cast<double>(e.end_us));
  bool repeat = false;
  if (cls == "enqueued") {
    const auto [earlier, is_first] = first_enqueued.try_emplace(e.subject, &e);
    if (!is_first) {
      repeat = true;
      title += "; a second Enqueued for this request (the first: " + lane_name(*earlier->second) +
               ", from " + duration_label(static_cast<double>(earlier->second->start_us)) + ")";
    }
  }
  out << "<g class=\"event " << name(e.kind) << "\"><title>" << xml(title)
      << "</title><rect class=\"" << cls << (repeat ? " repeat" : "") << "\" x=\"" << left
      << "\" y=\"" << top << "\" width=\"" << width << "\" height=\"" << height << "\" rx=\"2\"/>";
  // A call's answer is written on its bar when it fits (a pause's point is in its title).
  if (e.kind == HistoryEvent::Kind::Call && width > 7.0 * static_cast<double>(e.answer.size())) {
    out << "<text class=\"bar-label\" x=\"" << left + 4 << "\" y=\"" << top + kBar - 3 << "\">"
        << xml(e.answer) << "</text>";
  }
  out << "</g>\n";
}

// The timeline of `history` as an inline SVG: a row for the host's writes, one per session
// that has an event (the last `kMostRows`), and one for pauses whose session is unknown;
// time runs left to right, labelled in time since the check last reset the store. Returns
// how many sessions it left out (the earliest ones).
std::size_t timeline(std::ostream& out, const std::vector<HistoryEvent>& history) {
  const Lanes lanes = lanes_of(history);
  out << "<svg class=\"timeline\" width=\"" << kWidth << "\" height=\"" << lanes.height()
      << "\" viewBox=\"0 0 " << kWidth << ' ' << lanes.height()
      << "\" role=\"img\" aria-label=\"timeline of " << lanes.drawn.size() << " events\">\n";
  axis_and_labels(out, lanes);
  std::map<std::string, const HistoryEvent*> first_enqueued;
  for (const HistoryEvent* event : lanes.drawn) bar(out, lanes, *event, first_enqueued);
  out << "</svg>\n";
  return lanes.left_out;
}

void legend(std::ostream& out) {
  out << "<figcaption>One row per session the check opened since it last reset the store, "
         "numbered in the order it opened them; time runs left to right, from that reset. "
         "Hover a bar for the call, its request and its answer.";
  for (const auto& [cls, text] :
       std::initializer_list<std::pair<std::string_view, std::string_view>>{
           {"enqueued", "Enqueued"},
           {"already", "Already"},
           {"refused", "Refused"},
           {"error", "error"},
           {"indeterminate", "indeterminate"},
           {"lease", "lease call"},
           {"host", "host's write"}}) {
    out << "<svg class=\"swatch\" width=\"12\" height=\"12\"><rect class=\"" << cls
        << "\" width=\"12\" height=\"12\"/></svg>" << text;
  }
  out << "<svg class=\"swatch\" width=\"12\" height=\"12\"><rect class=\"pause\" width=\"12\" "
         "height=\"12\"/></svg>paused in the check's hook"
         "<svg class=\"swatch\" width=\"12\" height=\"12\"><rect class=\"hook-failed\" "
         "width=\"12\" height=\"12\"/></svg>the check's hook failed the step"
         "<svg class=\"swatch\" width=\"12\" height=\"12\"><rect class=\"enqueued repeat\" "
         "width=\"12\" height=\"12\"/></svg>a second Enqueued for the same request</figcaption>\n";
}

void events_table(std::ostream& out, const CheckRun& run) {
  // A short history is open: it is the interleaving, in words.
  out << "<details" << (run.history.size() <= 40 ? " open" : "")
      << "><summary>Every event of the timeline, in the order they began (" << run.history.size()
      << ")</summary>\n<table class=\"events\"><thead><tr><th>from</th>"
      << "<th>to</th><th>row</th><th>call</th><th>arguments</th><th>answer</th></tr></thead>"
      << "<tbody>\n";
  for (const HistoryEvent& e : run.history) {
    out << "<tr><td class=\"n\">" << xml(duration_label(static_cast<double>(e.start_us)))
        << "</td><td class=\"n\">" << xml(duration_label(static_cast<double>(e.end_us)))
        << "</td><td>" << xml(lane_name(e)) << "</td><td class=\"mono\">"
        << xml(e.kind == HistoryEvent::Kind::Pause ? "hook at " + e.what : e.what) << "</td><td>"
        << xml(e.subject) << "</td><td>" << xml(e.answer) << "</td></tr>\n";
  }
  out << "</tbody></table></details>\n";
}

void failure(std::ostream& out, const RunDescription& run, const CheckResult& record) {
  // The first failing run: its reason, seed and history (the total's reason is the same),
  // less the reads of the store's clock, which only the checker reads.
  CheckRun first = record.total;
  for (const CheckRun& each : record.runs) {
    if (each.verdict == Verdict::Fail) {
      first = each;
      break;
    }
  }
  std::erase_if(first.history, [](const HistoryEvent& e) { return e.store_time_ms.has_value(); });
  const CheckRun* failed = &first;
  const CheckRun& r = record.total;
  out << "<section class=\"failure\" id=\"" << xml(r.id) << "\">\n<h2>" << xml(r.id) << ' '
      << xml(r.title) << ": <span class=\"result fail\">failed</span></h2>\n<p class=\"reason\">"
      << xml(failed->reason) << "</p>\n<p>Seed " << failed->seed;
  if (record.runs.size() > 1) {
    std::string seeds;
    std::size_t failures = 0;
    for (const CheckRun& each : record.runs) {
      if (each.verdict != Verdict::Fail) continue;
      ++failures;
      seeds += (seeds.empty() ? "" : ", ") + std::to_string(each.seed);
    }
    out << "; it failed " << failures << " of " << record.runs.size() << " runs, with seeds "
        << seeds << ". What follows is the first of them";
  }
  out << ".</p>\n";
  if (!run.replay.empty()) {
    out << "<p>Replay this run:</p>\n<pre class=\"replay\"><code>" << xml(replay_of(run, *failed))
        << "</code></pre>\n";
  }
  if (failed->history.empty()) {
    out << "<p class=\"no-history\">No call was recorded since the check last reset the store, "
           "so there is no timeline to draw.</p>\n";
  } else {
    out << "<h3>What happened since the check last reset the store</h3>\n";
    if (failed->history_dropped > 0) {
      out << "<p>The " << failed->history_dropped << " earliest events are not kept: a failing "
          << "run keeps its last " << kHistoryLimit << ".</p>\n";
    }
    out << "<figure class=\"timeline\">\n";
    const std::size_t left_out = timeline(out, failed->history);
    legend(out);
    out << "</figure>\n";
    if (left_out > 0) {
      out << "<p class=\"left-out\">The timeline draws the last " << kMostRows << " sessions; the "
          << left_out << " before them, and every event, are in the table below.</p>\n";
    }
    events_table(out, *failed);
  }
  out << "</section>\n";
}

// How a report's checks came out.
struct Tally {
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::size_t passed_in_part = 0;
};

Tally tally_of(std::span<const CheckResult> records) {
  Tally tally;
  for (const CheckResult& record : records) {
    tally.failed += record.total.verdict == Verdict::Fail ? 1 : 0;
    tally.skipped += record.total.verdict == Verdict::Skip ? 1 : 0;
    tally.passed_in_part +=
        record.total.verdict == Verdict::Pass && left_unproven(record.total) ? 1 : 0;
  }
  tally.passed = records.size() - tally.failed - tally.skipped;
  return tally;
}

// The page's head, style and header: the verdict in a line.
void page_head(std::ostream& out, const RunDescription& run, const Tally& tally,
               std::size_t checks) {
  const std::string headline = tally.failed > 0 ? std::to_string(tally.failed) + " of " +
                                                      std::to_string(checks) + " checks failed"
                                                : std::string("No check failed");
  const std::string counted = std::to_string(tally.passed) + " passed, " +
                              std::to_string(tally.failed) + " failed, " +
                              std::to_string(tally.skipped) + " skipped";
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << xml("thm conformance: " + run.harness + ": " + headline) << "</title>\n"
      << "<style>" << kStyle
      << "</style>\n</head>\n<body>\n"
      // The hatching every timeline's pauses are filled with, defined once for the page.
      << "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
      << "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff3c4\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b08900\" stroke-width=\"3\"/>"
         "</pattern></defs></svg>\n"
      << "<header>\n<h1>Conformance report: " << xml(run.harness) << "</h1>\n<p class=\"verdict "
      << (tally.failed > 0 ? "fail" : "pass") << "\">" << xml(headline) << " (" << counted
      << ")</p>\n</header>\n";
}

// What the run was.
void run_section(std::ostream& out, const RunDescription& run) {
  const std::string declared = detail::joined(detail::declared_names(run.capabilities), ", ");
  out << "<section id=\"run\">\n<dl class=\"run\">\n";
  const auto row = [&](std::string_view key, const std::string& value, bool mono = false) {
    out << "<dt>" << xml(key) << "</dt><dd" << (mono ? " class=\"mono\"" : "") << ">" << xml(value)
        << "</dd>\n";
  };
  row("queue", run.queue, true);
  row("tool", run.tool);
  row("seed", std::to_string(run.seed));
  row("runs", std::to_string(run.runs) + (run.runs == 1 ? " run" : " runs") + ", each race " +
                  std::to_string(run.repeat) + " times" + (run.short_mode ? ", short mode" : ""));
  row("checks", run.checks.empty() ? std::string("all") : detail::joined(run.checks, ", "));
  if (!run.require.empty()) row("required capabilities", detail::joined(run.require, ", "));
  row("declared capabilities", declared.empty() ? std::string("none") : declared);
  row("took", detail::seconds(run.duration_ms) + " s");
  out << "</dl>\n</section>\n";
}

// What it did not prove, in words.
void unproven_section(std::ostream& out, std::span<const CheckResult> records, const Tally& tally) {
  out << "<section id=\"unproven\">\n<h2>What this run did not prove</h2>\n";
  if (tally.skipped + tally.passed_in_part == 0) {
    out << "<p>Nothing: every check ran in full.</p>\n";
  } else {
    out << "<p>A skipped check proved nothing of what its title promises; a check passed in "
           "part proved all but what its note says. A failure is a finding, not a gap, and is "
           "shown below.</p>\n<ul class=\"unproven\">\n";
    for (const CheckResult& record : records) {
      const CheckRun& r = record.total;
      if (!left_unproven(r)) continue;
      out << "<li><a href=\"#row-" << xml(r.id) << "\"><b>" << xml(r.id) << "</b></a> "
          << xml(r.title) << ": "
          << (r.verdict == Verdict::Skip ? "<span class=\"result skip\">not tested</span>, "
                                         : "<span class=\"result pass\">passed in part</span>, ")
          << xml(r.reason) << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "</section>\n";
}

// Every check, with its counts, runs and time.
void checks_section(std::ostream& out, std::span<const CheckResult> records) {
  out << "<section id=\"checks\">\n<h2>Every check</h2>\n<table>\n<thead><tr><th>check</th>"
      << "<th>title</th><th>result</th><th title=\"enqueue calls\">calls</th>"
      << "<th title=\"answered Enqueued\">enq.</th><th title=\"answered Already\">alr.</th>"
      << "<th title=\"answered Refused\">ref.</th><th title=\"definite errors\">err.</th>"
      << "<th title=\"indeterminate errors\">ind.</th>"
      << "<th title=\"keys answered Enqueued or Already that have no child\">lost</th>"
      << "<th title=\"keys with more than one child or Enqueued answer\">dup.</th>"
      << "<th>runs</th><th>time</th></tr></thead>\n<tbody>\n";
  for (const CheckResult& record : records) {
    const CheckRun& r = record.total;
    const Counts& c = r.counts;
    const bool fail = r.verdict == Verdict::Fail;
    out << "<tr id=\"row-" << xml(r.id) << "\"><td>"
        << (fail ? "<a href=\"#" + xml(r.id) + "\">" + xml(r.id) + "</a>" : xml(r.id))
        << "</td><td>" << xml(r.title) << "</td><td class=\"result " << name(r.verdict) << "\">"
        << name(r.verdict) << (r.verdict == Verdict::Pass && left_unproven(r) ? " (in part)" : "")
        << "</td>";
    for (const std::uint64_t n : {c.attempts, c.enqueued, c.already, c.refused, c.errors,
                                  c.indeterminate, c.lost, c.duplicated}) {
      out << "<td class=\"n\">" << n << "</td>";
    }
    out << "<td class=\"n\">" << record.runs.size() << "</td><td class=\"n\">"
        << xml(duration_label(static_cast<double>(total_ms(record)) * 1000.0)) << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n</section>\n";
}

}  // namespace

std::string to_html(const RunDescription& run, std::span<const CheckResult> records) {
  const Tally tally = tally_of(records);
  std::ostringstream out;
  page_head(out, run, tally, records.size());
  run_section(out, run);
  unproven_section(out, records, tally);
  checks_section(out, records);
  if (tally.failed > 0) out << "<h2 id=\"failures\">Failures</h2>\n";
  for (const CheckResult& record : records) {
    if (record.total.verdict == Verdict::Fail) failure(out, run, record);
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace thm::conformance
