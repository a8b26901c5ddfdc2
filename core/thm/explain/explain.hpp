#pragma once
/// \file
/// How a decision trace reads (SPEC §8.3, §8.4): one line per step for an operator, and the
/// sentences an agent may be shown. The steps themselves are `thm/trace/trace.hpp`'s; this
/// sits above the decisions because an agent's sentences are their §5 wording.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/trace/trace.hpp"

namespace thm {

/// The operator's line for one step (SPEC §8.3), e.g. `mention @bob at byte 4: skipped,
/// quiet`. It names agents, desks and people: for logs and operators, never for an agent.
/// Control characters (C0, DEL, C1), U+2028, U+2029 and backslashes of the subject are shown
/// as C escapes (`\n`, `\x1b`, `\u2028`), and a byte that is no UTF-8 as `\xNN`.
[[nodiscard]] std::string to_string(const TraceStep& step);

/// The agent's form of a trace (SPEC §8.4): the sentences of the steps on what the caller
/// already holds (its policy, its hop, its own identity), up to the first step that looks
/// at anyone else, then the sentence of the outcome. Every sentence is a constant of the
/// library's, so no id, name or mention text can appear in it; two traces whose refusals
/// §5 words alike render alike. A responder decision renders its rung's and disposition's
/// §5 sentences, which are distinct on purpose. Give it one decision's steps (a plan, then
/// its settling).
[[nodiscard]] std::vector<std::string_view> agent_sentences(std::span<const TraceStep> trace);

}  // namespace thm
