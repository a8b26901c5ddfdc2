#pragma once
/// \file
/// The frame of the `thm` tool: its exit codes, its commands and how each is found. The
/// library's commands (`check`, `eval`, `explain`) and the kit's (`conformance`, `adapter`)
/// are written the same way: a `Command` registered from the file that defines it, so the
/// tool has whichever commands are linked into it.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace thm::cli {

/// Success: what each command's help says success is for it.
inline constexpr int kOk = 0;
/// A case or a check failed.
inline constexpr int kFailed = 1;
/// Bad usage or unreadable input.
inline constexpr int kUsage = 2;

/// A help's last paragraph: the exit codes and what each means for one command (`failed`
/// may be empty: the command has no code 1).
[[nodiscard]] std::string exit_codes(const std::string& ok, const std::string& failed,
                                     const std::string& usage);

/// `words` joined by `separator`, wrapped into lines of at most `width` characters that
/// start with `indent`.
[[nodiscard]] std::string wrapped(const std::vector<std::string>& words,
                                  const std::string& separator, const std::string& indent,
                                  std::size_t width = 100);

/// One command of the tool.
class Command {
 public:
  virtual ~Command() = default;
  /// Adds the command to `app`, with its options and help; the subcommand it made.
  virtual CLI::App* add(CLI::App& app) = 0;
  /// Runs the command once the command line named it and parsed; its exit code. Output
  /// goes to std::cout, errors to std::cerr as one `thm COMMAND: ` line each.
  virtual int run() = 0;
  /// For the tool's own help: what success means for it (`every case passed`) and what a
  /// failure (`a case failed`, or empty when it has no code 1).
  [[nodiscard]] virtual std::string succeeded() const = 0;
  [[nodiscard]] virtual std::string failed() const = 0;

 protected:
  Command() = default;
  Command(const Command&) = default;
  Command& operator=(const Command&) = default;
};

/// Adds a command to every tool this file is linked into, listed by `order` (the library's
/// are 10, 20 and 30). Call it from a namespace-scope initializer in an object file that is
/// linked into the tool (an OBJECT library or the executable's own sources), e.g.
///     const bool registered = thm::cli::register_command(40, [] { ... });
bool register_command(int order, std::unique_ptr<Command> (*make)());

/// The tool and its version, as `thm --version` prints it and reports name it (`thm 0.1.0`).
[[nodiscard]] std::string tool_version();

/// Runs the tool on its command line: the registered commands, parsed with CLI11. Never
/// throws; an internal error is exit code 2.
[[nodiscard]] int run_tool(int argc, char** argv) noexcept;

}  // namespace thm::cli
