#pragma once
/// \file
/// What the PostgreSQL harness and the PostgreSQL mutants need of the server beyond the
/// queue: the scratch database and restart command the tests name in the environment, how
/// many sessions the server has room for, and a child's row held from a connection of its
/// own (EQ-27).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "thm/conformance/harness.hpp"

namespace thm::postgres {

/// `$THM_POSTGRES`, the libpq conninfo of a scratch database the suite may wipe. Unset:
/// throws `std::runtime_error`, never falling back to libpq's defaults, which may name a
/// real database.
[[nodiscard]] std::string scratch_database();

/// `$THM_POSTGRES_RESTART`, a shell command that restarts the server (EQ-23), or empty.
[[nodiscard]] std::string server_restart_command();

/// Sessions the server behind `conninfo` has room for beside the connections open now and a
/// harness's own two (the step's and the hook seam's), which open next. A session holds two
/// connections too, and six stay free for the harness's reconnects, its run session and
/// EQ-23's killed child; superuser-reserved slots are not counted on. Throws
/// `std::runtime_error` when the server cannot say.
[[nodiscard]] std::size_t free_sessions(const std::string& conninfo);

/// Child `child_id`'s row, locked by `SELECT … FOR UPDATE` in a transaction on a connection
/// of its own (its `search_path` set to `search_path`, unless that is empty) and rolled back
/// when the hold ends. Throws `std::runtime_error` when the row cannot be locked.
[[nodiscard]] std::unique_ptr<conformance::Hold> hold_row(const std::string& conninfo,
                                                          const std::string& search_path,
                                                          std::uint64_t child_id);

}  // namespace thm::postgres
