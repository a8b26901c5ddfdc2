#include "thm/postgres/replicated.hpp"

#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>

namespace thm::postgres {
namespace {

std::string environment(const char* variable, const char* what) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string(variable) + " is not set: set it to " + what);
  }
  return value;
}

// The first line of `directory`/`file`, which the cluster script wrote.
std::string read_line(const std::string& directory, const char* file) {
  std::ifstream in(directory + "/" + file);
  std::string line;
  if (!std::getline(in, line) || line.empty()) {
    throw std::runtime_error("cannot read " + directory + "/" + file +
                             ": is it a pair started by kit/scripts/pg_replicated_cluster?");
  }
  return line;
}

// `text` in single quotes for the shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Both nodes, the one that takes writes chosen at each connect; a node that does not
// answer is given up on after two seconds. The directory goes into a conninfo host list
// and a server command line unquoted, so it may hold no space, comma, quote or backslash.
std::string conninfo_of(const std::string& directory) {
  if (directory.find_first_of(" \t\n,'\"\\") != std::string::npos) {
    throw std::runtime_error("the pair's directory '" + directory +
                             "' holds a space, comma, quote or backslash, which its conninfo "
                             "cannot carry");
  }
  const int port = std::stoi(read_line(directory, "port"));
  return "host=" + directory + "," + directory + " port=" + std::to_string(port) + "," +
         std::to_string(port + 1) +
         " user=thm dbname=thm target_session_attrs=read-write connect_timeout=2";
}

constexpr auto kFailoverPatience = std::chrono::seconds(30);

}  // namespace

ReplicatedPostgresSetup::ReplicatedPostgresSetup()
    : ReplicatedPostgresSetup(
          environment("THM_POSTGRES_REPLICATED",
                      "the directory of a pair started by kit/scripts/pg_replicated_cluster"),
          THM_PG_REPLICATED_CLUSTER) {}

ReplicatedPostgresSetup::ReplicatedPostgresSetup(std::string directory, std::string script)
    : PostgresSetup(conninfo_of(directory)),
      directory_(std::move(directory)),
      script_(std::move(script)) {
  const std::string mode = read_line(directory_, "mode");
  if (mode != "sync" && mode != "async") {
    throw std::runtime_error("the pair in " + directory_ + " replicates '" + mode +
                             "', neither sync nor async");
  }
  replication_ = mode == "sync" ? Replication::Synchronous : Replication::Asynchronous;
}

std::string ReplicatedPostgresSetup::queue_name() const {
  return replication_ == Replication::Synchronous ? "postgres-replicated-sync"
                                                  : "postgres-replicated-async";
}

conformance::Capabilities ReplicatedPostgresSetup::capabilities() const {
  conformance::Capabilities declared = PostgresSetup::capabilities();
  declared.nodes = true;
  return declared;
}

void ReplicatedPostgresSetup::run(const std::string& arguments) const {
  const std::string command = quoted(script_) + " " + arguments;
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("the cluster script failed: " + command);
  }
}

std::string ReplicatedPostgresSetup::output_of(const std::string& arguments) const {
  const std::string command = quoted(script_) + " " + arguments;
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), &pclose);
  if (!pipe) throw std::runtime_error("cannot run the cluster script: " + command);
  std::string out;
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) != nullptr) {
    out += buffer.data();
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::size_t ReplicatedPostgresSetup::leader() const {
  const std::string primary = output_of("primary " + quoted(directory_) + " 2>/dev/null");
  if (primary != "0" && primary != "1") {
    throw std::runtime_error("no node of the pair in " + directory_ + " takes writes");
  }
  return primary == "0" ? 0 : 1;
}

void ReplicatedPostgresSetup::kill_node(std::size_t node) const {
  run("kill " + quoted(directory_) + " " + std::to_string(node));
}

void ReplicatedPostgresSetup::restart_node(std::size_t node) const {
  run("restart " + quoted(directory_) + " " + std::to_string(node));
}

void ReplicatedPostgresSetup::pause_node(std::size_t node) const {
  run("pause " + quoted(directory_) + " " + std::to_string(node));
}

void ReplicatedPostgresSetup::resume_node(std::size_t node) const {
  run("resume " + quoted(directory_) + " " + std::to_string(node));
}

void ReplicatedPostgresSetup::recover() const {
  const auto deadline = std::chrono::steady_clock::now() + kFailoverPatience;
  while (true) {
    try {
      (void)leader();
      return;
    } catch (const std::runtime_error&) {
    }
    // No primary answers: promote a standby that runs (the script refuses while the
    // primary's processes run).
    for (const std::size_t node : {0, 1}) {
      const std::string where = quoted(directory_) + " " + std::to_string(node);
      if (std::system((quoted(script_) + " promote " + where + " 2>/dev/null").c_str()) == 0) {
        return;
      }
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("no node of the pair in " + directory_ +
                               " takes writes, and no standby could be promoted");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void ReplicatedPostgresSetup::after_host_write() const {
  if (replication_ != Replication::Asynchronous) return;
  const std::size_t primary = leader();
  const std::string sender = quoted(directory_) + " " + std::to_string(primary);
  (void)std::system((quoted(script_) + " resume-sender " + sender + " 2>/dev/null").c_str());
  run("catch-up " + quoted(directory_) + " " + std::to_string(1 - primary));
  run("pause-sender " + sender);
}

}  // namespace thm::postgres
