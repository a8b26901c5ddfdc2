#pragma once
/// \file
/// Responder-ladder value types (SPEC §2.1, §2.4) and the wording of rungs and selection
/// dispositions (SPEC §5).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "thm/detail/enum_names.hpp"
#include "thm/detail/unreachable.hpp"
#include "thm/mentions/types.hpp"

namespace thm {

/// Whether the host allows a model selector to pick among a desk's members (SPEC §2.1).
/// Wire: `"allowed"`, `"disabled"`.
enum class SelectionPolicy : std::uint8_t { Allowed, Disabled };

/// One agent a selector may pick (SPEC §2.1): canonical id, label and role shown to the
/// selector, optional description (wire: required, nullable).
struct SelectorCandidate {
  std::string id{};
  std::string label{};
  std::string role{};
  std::optional<std::string> description{};
  friend bool operator==(const SelectorCandidate&, const SelectorCandidate&) = default;
};

/// What a host's selector is asked (SPEC §2.1): the message, the canonical desk id, and the
/// candidates in effective desk order.
struct SelectionRequest {
  std::string message{};
  std::string desk_id{};
  std::vector<SelectorCandidate> candidates{};
  friend bool operator==(const SelectionRequest&, const SelectionRequest&) = default;
};

/// Who answers a message: the ladder's input (SPEC §2.1). `chat` is the addressed chat
/// (wire: required, nullable; absent means General); `mentions` are the message's resolved
/// mentions; `orchestrator_id` answers when no other rung does; `thread_responder`, when the
/// host gives one, is the agent that last answered in the message's thread, which keeps
/// answering unless the message names another (SPEC §2.2 step 2).
struct ResponderRequest {
  std::string message{};
  std::optional<std::string> chat{};
  std::vector<Mention> mentions{};
  std::string orchestrator_id{};
  SelectionPolicy selection_policy = SelectionPolicy::Allowed;
  std::optional<std::string> thread_responder{};
  friend bool operator==(const ResponderRequest&, const ResponderRequest&) = default;
};

/// The rung of the responder ladder that decided (SPEC §2.4).
enum class ResponderRung : std::uint8_t {
  ExplicitMention,
  AutoSelection,
  DeskDefault,
  DirectAgent,
  Orchestrator,
  ThreadResponder,
};

/// What happened to model selection for a decision (SPEC §2.4).
enum class SelectionDisposition : std::uint8_t {
  NotApplicable,
  Selected,
  Disabled,
  Unavailable,
  InvalidOutput,
};

/// The agent that answers, the rung that chose it and what became of selection (SPEC §2.4).
struct ResponderDecision {
  std::string responder_id{};
  ResponderRung rung = ResponderRung::Orchestrator;
  SelectionDisposition disposition = SelectionDisposition::NotApplicable;
  friend bool operator==(const ResponderDecision&, const ResponderDecision&) = default;
};

/// The ladder decided without a selector (SPEC §2.4 `Decided{decision}`).
struct Decided {
  ResponderDecision decision{};
  friend bool operator==(const Decided&, const Decided&) = default;
};
/// The ladder asks the host's selector (SPEC §2.4 `Select{request, fallback}`); settle it
/// with `settle_selection` (SPEC §2.6). `fallback` is the desk default.
struct Select {
  SelectionRequest request{};
  ResponderDecision fallback{};
  friend bool operator==(const Select&, const Select&) = default;
};
/// The ladder's plan (SPEC §2.4). Wire: tagged by `kind` (`decided`, `select`).
using ResponderPlan = std::variant<Decided, Select>;

/// Every `SelectionPolicy`, in declaration order.
inline constexpr std::array kAllSelectionPolicies{SelectionPolicy::Allowed,
                                                  SelectionPolicy::Disabled};
/// Every `ResponderRung`, in declaration order.
inline constexpr std::array kAllResponderRungs{
    ResponderRung::ExplicitMention, ResponderRung::AutoSelection, ResponderRung::DeskDefault,
    ResponderRung::DirectAgent,     ResponderRung::Orchestrator,  ResponderRung::ThreadResponder};
/// Every `SelectionDisposition`, in declaration order.
inline constexpr std::array kAllSelectionDispositions{
    SelectionDisposition::NotApplicable, SelectionDisposition::Selected,
    SelectionDisposition::Disabled, SelectionDisposition::Unavailable,
    SelectionDisposition::InvalidOutput};

/// The wire token of `policy`: `allowed` or `disabled`.
[[nodiscard]] constexpr std::string_view name(SelectionPolicy policy) noexcept {
  switch (policy) {
    case SelectionPolicy::Allowed:
      return "allowed";
    case SelectionPolicy::Disabled:
      return "disabled";
  }
  detail::unreachable();
}
/// The policy whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<SelectionPolicy> selection_policy_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllSelectionPolicies);
}

/// The wire token of `rung`, e.g. `desk_default`.
[[nodiscard]] constexpr std::string_view name(ResponderRung rung) noexcept {
  switch (rung) {
    case ResponderRung::ExplicitMention:
      return "explicit_mention";
    case ResponderRung::AutoSelection:
      return "auto_selection";
    case ResponderRung::DeskDefault:
      return "desk_default";
    case ResponderRung::DirectAgent:
      return "direct_agent";
    case ResponderRung::Orchestrator:
      return "orchestrator";
    case ResponderRung::ThreadResponder:
      return "thread_responder";
  }
  detail::unreachable();
}
/// The rung whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<ResponderRung> responder_rung_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllResponderRungs);
}
/// Why this agent is answering, in one sentence a person may read (SPEC §5).
[[nodiscard]] constexpr std::string_view to_string(ResponderRung rung) noexcept {
  switch (rung) {
    case ResponderRung::ExplicitMention:
      return "the message named this agent directly";
    case ResponderRung::AutoSelection:
      return "the desk's selector picked this agent";
    case ResponderRung::DeskDefault:
      return "this agent leads the addressed desk";
    case ResponderRung::DirectAgent:
      return "the message was sent to this agent's own chat";
    case ResponderRung::Orchestrator:
      return "no other rule applied, so the orchestrator answers";
    case ResponderRung::ThreadResponder:
      return "this agent answered last in this thread and keeps answering";
  }
  detail::unreachable();
}

/// The wire token of `disposition`, e.g. `invalid_output`.
[[nodiscard]] constexpr std::string_view name(SelectionDisposition disposition) noexcept {
  switch (disposition) {
    case SelectionDisposition::NotApplicable:
      return "not_applicable";
    case SelectionDisposition::Selected:
      return "selected";
    case SelectionDisposition::Disabled:
      return "disabled";
    case SelectionDisposition::Unavailable:
      return "unavailable";
    case SelectionDisposition::InvalidOutput:
      return "invalid_output";
  }
  detail::unreachable();
}
/// The disposition whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<SelectionDisposition> selection_disposition_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllSelectionDispositions);
}
/// What became of model selection, in one sentence a person may read (SPEC §5).
/// `Unavailable` and `InvalidOutput` are deliberately worded apart.
[[nodiscard]] constexpr std::string_view to_string(SelectionDisposition disposition) noexcept {
  switch (disposition) {
    case SelectionDisposition::NotApplicable:
      return "no selector was needed for this message";
    case SelectionDisposition::Selected:
      return "the selector's choice was accepted";
    case SelectionDisposition::Disabled:
      return "selection is turned off, so the desk lead answers";
    case SelectionDisposition::Unavailable:
      return "no selector answer was available, so the desk lead answers";
    case SelectionDisposition::InvalidOutput:
      return "the selector's answer named no single candidate, so the desk lead answers";
  }
  detail::unreachable();
}

}  // namespace thm
