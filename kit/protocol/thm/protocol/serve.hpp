#pragma once
/// \file
/// The adapter side of kit/protocol/PROTOCOL.md for a harness in this process: `serve` reads
/// requests from `in`, runs each on `harness` and writes the answers to `out`, in
/// `multiplexed` mode. `thm adapter memory` serves the in-memory reference queue this way,
/// so that `thm conformance --queue 'exec:thm adapter memory'` proves the protocol (and
/// `ExecHarness`) against the reference.

#include <iosfwd>

#include "thm/conformance/harness.hpp"
#include "thm/protocol/protocol.hpp"

namespace thm::protocol {

/// Serves `harness` until `in` ends; returns 0, or 1 after a line that broke the protocol
/// (a hook reply to no hook call in flight; reported on `log`). A line that is not JSON or
/// has no numeric id is logged on `log` and ignored, and a blank one skipped (PROTOCOL.md
/// §1); neither changes what it returns. Each request
/// runs on a thread of its own, so a hook that holds one session's enqueue open never
/// stops another session or a harness operation. A hook installed by `set_hook` asks the
/// suite at every point (`hook_call`) and waits for its `hook_reply`. Members of `harness`
/// that throw `Unsupported` are answered `unsupported`; any other exception `failure`.
int serve(Harness& harness, std::istream& in, std::ostream& out, std::ostream& log);

}  // namespace thm::protocol
