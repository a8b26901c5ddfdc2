#include "thm/cli/tool.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <system_error>
#include <utility>

namespace thm::cli {
namespace {

struct Registration {
  int order = 0;
  std::unique_ptr<Command> (*make)() = nullptr;
};

// Filled by namespace-scope initializers before main, read by run_tool.
std::vector<Registration>& registrations() {
  static std::vector<Registration> all;
  return all;
}

// The first letter of `text` in lower case, unless it starts a word in capitals (`FILE`).
std::string lower_first(std::string text) {
  if (text.size() > 1 && std::isupper(static_cast<unsigned char>(text[0])) != 0 &&
      std::isupper(static_cast<unsigned char>(text[1])) == 0) {
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '.')) text.pop_back();
  return text;
}

// A parse error as one `thm COMMAND: ` line that points at that command's help.
std::string failure_message(const CLI::App* app, const CLI::Error& error) {
  std::string command = "thm";
  for (const CLI::App* sub : app->get_subcommands()) command += " " + sub->get_name();
  if (command == "thm") {
    std::vector<std::string> names;
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    const std::vector<std::string> extras = app->remaining();
    if (!extras.empty()) {
      const std::string& extra = extras.front();
      // A kit command asked of the library's own build: say where it comes from.
      const bool kit = extra == "conformance" || extra == "adapter";
      return std::string("thm: unknown ") + (extra.starts_with("-") ? "option '" : "command '") +
             extra + "'; " +
             (kit ? "it comes with the queue kit's build of thm (kit/README.md); " : "") +
             "name one of " + list + ", or see 'thm --help'\n";
    }
    if (error.get_name() == "RequiredError") {
      return "thm: name a command: " + list + ", or see 'thm --help'\n";
    }
  }
  return command + ": " + lower_first(error.what()) + "; see '" + command + " --help'\n";
}

// `code`, once stdout is flushed: output that could not be written (a full disk, a closed
// file) is no success, so that is an error on stderr and exit 2. A failure the command
// already reported (a failed case or check, an interrupted run) outranks it, as a failed
// check outranks a report that cannot be written.
int flushed(const std::string& command, int code) {
  errno = 0;
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  const int error = errno;
  std::cerr << "thm" << (command.empty() ? "" : " " + command)
            << ": cannot write to standard output";
  if (error != 0) {
    std::string reason = std::generic_category().message(error);
    if (!reason.empty()) {
      reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    }
    std::cerr << " (" << reason << ")";
  }
  std::cerr << "; send it to a file or pipe that can be written\n";
  return code == kOk ? kUsage : code;
}

// The tool's own help: where each command's help is, and the exit codes of them all.
std::string main_footer(const std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>>& made) {
  std::vector<std::string> succeeded;
  std::vector<std::string> failed;
  for (const auto& [app, command] : made) {
    succeeded.push_back(command->succeeded() + " (" + app->get_name() + ")");
    if (!command->failed().empty())
      failed.push_back(command->failed() + " (" + app->get_name() + ")");
  }
  succeeded.emplace_back("or help or the version was printed");
  // The phrases as one sentence after `prefix`, wrapped under the code's column.
  const auto sentence = [](const std::string& prefix, std::vector<std::string> parts) {
    if (parts.empty()) return std::string();
    parts.front() = prefix + parts.front();
    return wrapped(parts, ", ", "     ").substr(5);
  };
  return "Run `thm COMMAND --help` for a command's arguments, input, output and exit codes.\n"
         "Results, reports and case failures go to stdout; errors go to stderr, one line each,\n"
         "starting with `thm COMMAND: `.\n\n" +
         exit_codes(sentence("success: ", succeeded), sentence("", failed),
                    "bad usage or unreadable input: an unknown command or option, or what the\n"
                    "     command's help lists");
}

int run(int argc, char** argv) {
  CLI::App app{"thm: decide who answers a message, and whether a reply may start one more turn",
               "thm"};
  app.set_version_flag("--version", tool_version(),
                       "Print the version (the project's, from CMakeLists.txt) and exit");
  app.require_subcommand(1);
  app.failure_message(failure_message);

  auto ordered = registrations();
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> made;
  for (const auto& registration : ordered) {
    auto command = registration.make();
    CLI::App* sub = command->add(app);
    made.emplace_back(sub, std::move(command));
  }
  // Set last: a subcommand copies its parent's footer when it is made.
  app.footer(main_footer(made));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);  // --help and --version print here, to stdout
    return code == 0 ? flushed("", kOk) : kUsage;
  }
  for (const auto& [sub, command] : made) {
    if (sub->parsed()) return flushed(sub->get_name(), command->run());
  }
  return kUsage;  // require_subcommand(1) makes this unreachable
}

}  // namespace

std::string exit_codes(const std::string& ok, const std::string& failed, const std::string& usage) {
  std::string out = "Exit codes:\n  0  " + ok + "\n";
  if (!failed.empty()) out += "  1  " + failed + "\n";
  return out + "  2  " + usage;
}

std::string wrapped(const std::vector<std::string>& words, const std::string& separator,
                    const std::string& indent, std::size_t width) {
  std::string out = indent;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string word = words[i] + (i + 1 < words.size() ? separator : "");
    const std::string trimmed_word = word.substr(0, word.find_last_not_of(' ') + 1);
    if (out.size() - line_start + trimmed_word.size() > width &&
        out.size() > line_start + indent.size()) {
      while (out.ends_with(' ')) out.pop_back();
      out += "\n";
      line_start = out.size();
      out += indent;
    }
    out += word;
  }
  return out;
}

std::string tool_version() { return std::string("thm ") + THM_VERSION; }

bool register_command(int order, std::unique_ptr<Command> (*make)()) {
  registrations().push_back({order, make});
  return true;
}

int run_tool(int argc, char** argv) noexcept {
  // Nothing throws out of the tool: whatever escapes is an internal error, exit 2.
  try {
    return run(argc, argv);
  } catch (const std::exception& failure) {
    std::cerr << "thm: internal error: " << failure.what() << "\n";
  } catch (...) {
    std::cerr << "thm: internal error\n";
  }
  return kUsage;
}

}  // namespace thm::cli
