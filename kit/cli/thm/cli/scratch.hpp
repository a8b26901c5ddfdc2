#pragma once
/// \file
/// The scratch-database guards of `thm conformance --queue sqlite:PATH` and
/// `--queue postgres:CONNINFO`. The suite deletes every row of the thm tables, so the tool
/// runs it only on a database that is new, empty, or marked by an earlier run: a table named
/// `thm_conformance_scratch`, which the guard creates on a database it accepts.

#include <memory>
#include <string>

#include "thm/conformance/harness.hpp"

namespace thm::cli {

/// The SQLite harness over a scratch database at `path`: a missing or empty file becomes one
/// (and is marked); a file already marked is reused. Any other database is refused with
/// `std::runtime_error` saying why, as is a file that cannot be read or marked.
[[nodiscard]] std::unique_ptr<conformance::Harness> sqlite_scratch_harness(const std::string& path);

/// The PostgreSQL harness over a scratch database named by libpq `conninfo`: a database
/// with no tables in any schema but the system's (thm's included) becomes one (and is
/// marked); one whose current schema holds the mark is reused. Any other is refused with
/// `std::runtime_error` saying why, as is a server that cannot be reached; no message
/// quotes `conninfo`, which may hold a password.
[[nodiscard]] std::unique_ptr<conformance::Harness> postgres_scratch_harness(
    const std::string& conninfo);

}  // namespace thm::cli
