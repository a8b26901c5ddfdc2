#pragma once
// The `LargeRosterWarning` (adr/0028): an operation given a roster of more than
// `kLargeRosterOnViews` agents as a snapshot, read as views on every call, warns once per
// process, through `process.emitWarning` (code `THM_LARGE_ROSTER`), that a prepared team
// (`thm.prepareTeam`) would serve it at a fraction of the cost. Node's own switches then
// apply: `--disable-warning=THM_LARGE_ROSTER` silences it, `--no-warnings` every warning, and
// a `process.on("warning")` listener sees it (a test fails on it by throwing there).

#include <napi.h>

#include <atomic>
#include <string>
#include <string_view>

#include "thm/core.hpp"

namespace thm::node {

/// Warns when `roster`, which `op` is about to read as views, is larger than a team should be
/// left unprepared.
inline void warn_if_large(Napi::Env env, const RosterSnapshot& roster, std::string_view op) {
  static std::atomic<bool> warned{false};
  if (roster.members.size() <= kLargeRosterOnViews || warned.exchange(true)) return;
  const Napi::Object process = env.Global().Get("process").As<Napi::Object>();
  const Napi::Value emit = process.Get("emitWarning");
  if (!emit.IsFunction()) return;
  Napi::Object options = Napi::Object::New(env);
  options.Set("type", "LargeRosterWarning");
  options.Set("code", "THM_LARGE_ROSTER");
  const std::string message =
      std::string(op) + ": a roster of " + std::to_string(roster.members.size()) +
      " agents, read as snapshots, is validated and indexed again on every call; prepare it "
      "once per change with thm.prepareTeam({ roster, desks }) and pass { team } instead";
  emit.As<Napi::Function>().Call(process, {Napi::String::New(env, message), options});
}

}  // namespace thm::node
