#pragma once
/// \file
/// Running the `thm` tool as a user does, from a test: its exit code, stdout and stderr, and
/// what every error of the tool must look like (house style: one line, `thm COMMAND: `).
/// Test support for the library's and the kit's tool tests; header-only, GoogleTest.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace thm::testing {

/// What one run of the tool did.
struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

/// The whole of the file at `path`.
inline std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// `thm ARGS` (the tool at THM_EXE, which the test's build defines) with `input` on stdin;
/// `args` is shell text. `stdout_to` replaces the file that catches stdout (e.g. /dev/full);
/// `out` is then empty. `in_dir` is the directory it runs in (default: the test's own).
inline Outcome thm(const std::string& args, const std::string& input = "",
                   const std::string& stdout_to = "", const std::string& in_dir = "") {
  const std::string base = ::testing::TempDir() + "thm_cli_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(base + ".in", std::ios::binary) << input;
  std::ofstream(base + ".out", std::ios::trunc).close();
  const std::string out = stdout_to.empty() ? base + ".out" : stdout_to;
  const std::string command = (in_dir.empty() ? "" : "cd '" + in_dir + "' && ") + "'" +
                              std::string(THM_EXE) + "' " + args + " <'" + base + ".in' >'" + out +
                              "' 2>'" + base + ".err'";
  const int status = std::system(command.c_str());
  return {.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          .out = slurp(base + ".out"),
          .err = slurp(base + ".err")};
}

/// An error as the house style has it: exit 2, one line on stderr starting with `prefix`,
/// lower case after the prefix (but for a name in capitals, like FILE), no trailing period.
inline void expect_usage_error(const Outcome& run, const std::string& prefix) {
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_TRUE(run.err.starts_with(prefix)) << run.err;
  ASSERT_GT(run.err.size(), prefix.size() + 1) << run.err;
  EXPECT_FALSE(std::isupper(static_cast<unsigned char>(run.err[prefix.size()])) != 0 &&
               std::islower(static_cast<unsigned char>(run.err[prefix.size() + 1])) != 0)
      << run.err;
  EXPECT_TRUE(run.err.ends_with("\n")) << run.err;
  EXPECT_FALSE(run.err.ends_with(".\n")) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

/// True when `part` occurs in `text`.
inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace thm::testing
