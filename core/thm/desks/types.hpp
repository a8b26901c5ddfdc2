#pragma once
/// \file
/// Desk value types (SPEC §1.2): declared desks, operator-added membership rows and stored
/// member orders. The desk rules (validation, effective members, resolution) build on these.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thm/detail/enum_names.hpp"
#include "thm/detail/unreachable.hpp"

namespace thm {

/// How a desk picks who answers (SPEC §1.2): its lead, or a model selector among its
/// members. Wire: `"lead"` (the default, omitted on output) or `"auto"`.
enum class ResponderMode : std::uint8_t { Lead, Auto };

/// The wire token of `mode`: `lead` or `auto`.
[[nodiscard]] constexpr std::string_view name(ResponderMode mode) noexcept {
  switch (mode) {
    case ResponderMode::Lead:
      return "lead";
    case ResponderMode::Auto:
      return "auto";
  }
  detail::unreachable();
}
/// Every `ResponderMode`, in declaration order.
inline constexpr std::array kAllResponderModes{ResponderMode::Lead, ResponderMode::Auto};
/// The mode whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<ResponderMode> responder_mode_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllResponderModes);
}

/// A desk (SPEC §1.2): an id and a display name (both case-sensitive), an optional
/// description (wire: required, nullable), founding member agent ids in order, and its
/// responder mode.
struct Desk {
  std::string id{};
  std::string name{};
  std::optional<std::string> description{};
  std::vector<std::string> members{};
  ResponderMode responder_mode = ResponderMode::Lead;
  friend bool operator==(const Desk&, const Desk&) = default;
};

/// An operator-added membership row: agent `agent_id` joins desk `desk_id` (SPEC §1.2).
struct DeskMember {
  std::string desk_id{};
  std::string agent_id{};
  friend bool operator==(const DeskMember&, const DeskMember&) = default;
};

/// A complete replacement member order for desk `desk_id` (SPEC §1.2).
struct DeskOrder {
  std::string desk_id{};
  std::vector<std::string> ordered{};
  friend bool operator==(const DeskOrder&, const DeskOrder&) = default;
};

/// The six desk snapshots as owned lists, in the shape the case files use (cases.md):
/// declared desks, operator-added desks, membership rows, stored orders, and the retired
/// and tombstoned agent ids the desk rules skip (SPEC §1.2).
struct DeskSnapshot {
  std::vector<Desk> declared{};
  std::vector<Desk> added{};
  std::vector<DeskMember> member_additions{};
  std::vector<DeskOrder> orders{};
  std::vector<std::string> retired{};
  std::vector<std::string> tombstoned{};
  friend bool operator==(const DeskSnapshot&, const DeskSnapshot&) = default;
};

}  // namespace thm
