// The scratch guards of a `thm` built without the SQLite and PostgreSQL stores (the tool the
// Python and Node.js packages carry): `sqlite:` and `postgres:` are known queue kinds that
// this build cannot open, and the message says which queues it can.
#include <stdexcept>

#include "thm/cli/scratch.hpp"

namespace thm::cli {
namespace {

[[noreturn]] void absent(const char* store) {
  throw std::runtime_error(std::string("this thm was built without the ") + store +
                           " store; it runs memory and exec:COMMAND queues (serve a queue over "
                           "exec: from Python or Node.js with the package's harness)");
}

}  // namespace

std::unique_ptr<conformance::Harness> sqlite_scratch_harness(const std::string& /*path*/) {
  absent("SQLite");
}

std::unique_ptr<conformance::Harness> postgres_scratch_harness(const std::string& /*conninfo*/) {
  absent("PostgreSQL");
}

}  // namespace thm::cli
