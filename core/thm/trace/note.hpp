#pragma once
/// \file
/// Internal: how a decision notes its steps (SPEC §8.1). Each decision is one template over
/// a `Note`; the untraced call instantiates it with `Untraced`, whose notes are empty
/// inline calls, so it builds nothing, allocates nothing and does what it did before traces
/// existed (bench/README.md, "Decision traces").

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "thm/mentions/types.hpp"
#include "thm/overloaded.hpp"
#include "thm/trace/trace.hpp"

namespace thm::detail {

/// No trace was asked for: a step's maker is never called.
struct Untraced {
  static constexpr bool kOn = false;
  template <class MakeStep>
  constexpr void operator()(MakeStep&& /*make*/) const noexcept {}
};

/// Appends each step to the caller's trace.
struct Traced {
  static constexpr bool kOn = true;
  DecisionTrace* trace = nullptr;
  template <class MakeStep>
  void operator()(MakeStep&& make) const {
    trace->push_back(make());
  }
};

/// Why a mention cannot be a direct agent mention by its own fields: quiet, or naming no
/// agent; nothing for a non-quiet agent mention.
[[nodiscard]] inline std::optional<TraceWhy> mention_shape(const Mention& mention) noexcept {
  if (mention.quiet) return TraceWhy::Quiet;
  return std::visit(overloaded{
                        [](const AgentTarget&) { return std::optional<TraceWhy>(); },
                        [](const PersonTarget&) { return std::optional(TraceWhy::Person); },
                        [](const DeskTarget&) { return std::optional(TraceWhy::Desk); },
                        [](const EveryoneTarget&) { return std::optional(TraceWhy::Everyone); },
                    },
                    mention.target);
}

/// Notes `mentions` in reading order (offset, then list order), each skipped with the
/// reason `why_not` gives it, up to and including the first it gives none, which is
/// noted as chosen (SPEC §8.2 `mention`). Traced calls only.
template <class WhyNot>
void note_mentions(std::span<const Mention> mentions, const Traced& note, WhyNot why_not) {
  std::vector<const Mention*> order;
  order.reserve(mentions.size());
  for (const Mention& mention : mentions) order.push_back(&mention);
  std::ranges::stable_sort(order, {}, &Mention::offset);
  for (const Mention* mention : order) {
    const std::optional<TraceWhy> why = why_not(*mention);
    note([&] {
      return TraceStep{.rule = TraceRule::Mention,
                       .outcome = why ? TraceOutcome::Skipped : TraceOutcome::Applied,
                       .why = why,
                       .subject = mention->text,
                       .offset = mention->offset};
    });
    if (!why) return;
  }
}

}  // namespace thm::detail
