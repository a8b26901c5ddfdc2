#pragma once
// `thm explain`: one decision and the steps that made it (SPEC §8), as JSON and as text.

#include <optional>
#include <string>
#include <string_view>

#include "thm/cli/cases.hpp"
#include "thm/json/json.hpp"

namespace thm::cli {

/// `op`'s result object for `input` (as `run_op` gives it) with `trace`, the steps of the
/// decision (SPEC §8.2; `[]` when the input was refused before any step), `operator`, one
/// line per step (§8.3), and `agent`, the sentences an agent may be shown (§8.4). An error
/// message when `op` is not one of `kExplainedOps`, `impl` does not run it, or a step of the
/// trace is not a `TraceStep` (a model answering outside the wire form).
[[nodiscard]] Result<json::Value, std::string> explain_op(std::string_view op,
                                                          const json::Value& input,
                                                          std::optional<json::DecodeError> refused,
                                                          Implementation impl);

/// The readable form of `explain_op`'s answer: the decision in a few words (who answers and
/// why, the refusal, or the error's variant; the JSON form has it all), the numbered
/// operator lines, then the agent's sentences.
[[nodiscard]] std::string explanation_text(std::string_view op, const json::Value& explained);

}  // namespace thm::cli
