#include "thm/cli/cases.hpp"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <system_error>

namespace thm::cli {
namespace {

using json::Value;

// Numbers compare exactly (cases.md): integers as integers, never through a double; an
// integer never equals a number written with a fraction or an exponent.
bool same_number(const Value& expected, const Value& actual) {
  if (!expected.is_number() || !actual.is_number()) return false;
  if (expected.is_number_float() || actual.is_number_float()) {
    return expected.is_number_float() && actual.is_number_float() &&
           expected.get<double>() == actual.get<double>();
  }
  const auto value =
      [](const Value& v) -> std::pair<bool, std::uint64_t> {  // {negative, magnitude}
    if (v.is_number_unsigned()) return {false, v.get<std::uint64_t>()};
    const auto signed_value = v.get<std::int64_t>();
    if (signed_value >= 0) return {false, static_cast<std::uint64_t>(signed_value)};
    return {true, static_cast<std::uint64_t>(-(signed_value + 1)) + 1};
  };
  return value(expected) == value(actual);
}

// Structural equality; objects compare regardless of key order. With `subset`, an object
// in `expected` only needs its own keys to be present and equal in `actual`.
bool equal(const Value& expected, const Value& actual, bool subset) {
  if (expected.is_object()) {
    if (!actual.is_object()) return false;
    if (!subset && expected.size() != actual.size()) return false;
    for (const auto& [key, value] : expected.items()) {
      const auto found = actual.find(key);
      if (found == actual.end() || !equal(value, *found, subset)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || expected.size() != actual.size()) return false;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (!equal(expected[i], actual[i], subset)) return false;
    }
    return true;
  }
  if (expected.is_number() || actual.is_number()) return same_number(expected, actual);
  return expected == actual;
}

bool starts_with_segment(std::string_view path, std::string_view prefix) {
  return path.starts_with(prefix) && (path.size() == prefix.size() || path[prefix.size()] == '/');
}

// Where a case cannot be run at all: its shape is not a case.
std::optional<std::string> malformed(const Value& c) {
  if (!c.is_object()) return "a case must be an object";
  if (!c.contains("name") || !c["name"].is_string()) return "a case needs a string \"name\"";
  if (!c.contains("op") || !c["op"].is_string()) return "a case needs a string \"op\"";
  if (!c.contains("input")) return "a case needs an \"input\"";
  if (!c.contains("expected")) return "a case needs an \"expected\"";
  return std::nullopt;
}

// What `thm check` shows when a file is not a JSON array of cases.
constexpr const char* kExampleCaseFile =
    R"([{"name": "n", "op": "is_general_chat", "input": {"chat": "MAIN"}, "expected": {"result": true}}])";

// What kind of JSON value `value` is, e.g. `object`.
std::string kind_of(const Value& value) {
  if (value.is_object()) return "object";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "boolean";
  if (value.is_number()) return "number";
  if (value.is_null()) return "null";
  return "value";
}

// Why a file could not be opened, from `errno`, in lower case (e.g. `no such file or
// directory`).
std::string reason_of(int error) {
  if (error == 0) return "it cannot be opened";
  std::string reason = std::generic_category().message(error);
  if (!reason.empty())
    reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  return reason;
}

struct Verdict {
  bool passed = false;
  std::string problem{};  // why the case could not run, if it could not
  Value actual{};
};

// Runs case `index` of a file; `repeated_keys` are the file's repeated-key paths.
Verdict run_case(const Value& c, std::size_t index, const std::vector<std::string>& repeated_keys,
                 Implementation impl, RunNotes& notes) {
  if (auto problem = malformed(c)) return {.problem = *problem};
  // Appended rather than `"/" + ...`: g++ 12 -O3 reports a false -Wrestrict on the latter.
  std::string prefix(1, '/');
  prefix += std::to_string(index);
  std::optional<json::DecodeError> refused;
  for (const std::string& path : repeated_keys) {
    if (!starts_with_segment(path, prefix)) continue;
    const std::string_view in_case = std::string_view(path).substr(prefix.size());
    if (!starts_with_segment(in_case, "/input")) {
      return {.problem = "the key at " + std::string(in_case) + " is repeated"};
    }
    // SPEC §0.5: a repeated key in the input is a decode error of that input.
    if (!refused) {
      refused = json::DecodeError{.path = std::string(in_case),
                                  .reason = "a key is repeated within one object"};
    }
  }
  auto actual = run_op(c["op"].get<std::string>(), c["input"], std::move(refused), impl, &notes);
  if (!actual.has_value()) return {.problem = actual.error()};
  return {.passed = matches(c["expected"], *actual), .actual = *std::move(actual)};
}

}  // namespace

bool matches(const Value& expected, const Value& actual) {
  if (!expected.is_object() || !actual.is_object()) return equal(expected, actual, false);
  if (expected.size() != actual.size()) return false;
  for (const auto& [key, value] : expected.items()) {
    const auto found = actual.find(key);
    if (found == actual.end() || !equal(value, *found, key == "error")) return false;
  }
  return true;
}

CheckSummary check_files(const std::vector<std::string>& paths, std::ostream& out,
                         std::ostream& errors, Implementation impl) {
  CheckSummary summary;
  for (const std::string& path : paths) {
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) {
      errors << "thm check: cannot read '" << path
             << "': it is a directory; name the case files in it, e.g. '" << path
             << (path.ends_with('/') ? "" : "/") << "*.json'\n";
      summary.unreadable = true;
      continue;
    }
    errno = 0;
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    if (file) text << file.rdbuf();
    if (!file) {
      errors << "thm check: cannot read '" << path << "': " << reason_of(errno) << "\n";
      summary.unreadable = true;
      continue;
    }
    std::vector<std::string> repeated_keys;
    const auto document = json::parse(text.str(), &repeated_keys);
    if (!document.has_value() || !document->is_array()) {
      errors << "thm check: '" << path << "' is "
             << (document.has_value() ? "a JSON " + kind_of(*document) + ", not an array of cases"
                                      : "not JSON (" + document.error().reason + ")")
             << "; a case file is a JSON array of cases, e.g. " << kExampleCaseFile << "\n";
      summary.unreadable = true;
      continue;
    }
    if (document->empty()) {
      // A file that checks nothing must not read as a pass.
      errors << "thm check: '" << path
             << "' holds no cases; a case file is a JSON array of at least one case, e.g. "
             << kExampleCaseFile << "\n";
      summary.unreadable = true;
      continue;
    }
    for (std::size_t i = 0; i < document->size(); ++i) {
      const Value& c = (*document)[i];
      RunNotes notes;
      const Verdict verdict = run_case(c, i, repeated_keys, impl, notes);
      if (notes.unprepared) ++summary.unprepared;
      if (verdict.passed) {
        ++summary.passed;
        continue;
      }
      ++summary.failed;
      const bool named = c.is_object() && c.contains("name") && c["name"].is_string();
      out << "FAIL " << path << " #" << i << " "
          << (named ? c["name"].get<std::string>() : std::string("(unnamed)")) << "\n";
      if (!verdict.problem.empty()) {
        out << "  problem:  " << verdict.problem << "\n";
      } else {
        out << "  op:       " << c["op"].get<std::string>() << "\n"
            << "  expected: " << c["expected"].dump() << "\n"
            << "  actual:   " << verdict.actual.dump() << "\n";
      }
    }
  }
  return summary;
}

std::string summary_line(const CheckSummary& summary) {
  std::string line =
      std::to_string(summary.passed) + " passed, " + std::to_string(summary.failed) + " failed";
  if (summary.unprepared > 0) {
    line += "; " + std::to_string(summary.unprepared) +
            " of them on snapshots no team holds, run on views";
  }
  return line;
}

}  // namespace thm::cli
