#pragma once
/// \file
/// Chat identity (SPEC §1.3): the General desk and its spellings, conversations, and the
/// canonical dispatch scope a host keys its idempotency records by.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace thm {

/// The default desk's id and name (SPEC §1.3 `GENERAL_DESK`).
inline constexpr std::string_view kGeneralDesk = "General";
/// The console's default thread id (SPEC §1.3 `MAIN_THREAD_ID`).
inline constexpr std::string_view kMainThreadId = "main";

/// A host message sequence number (SPEC §6 `Sequence`, u64): trigger sequences and
/// thread roots.
using Sequence = std::uint64_t;

/// True for exactly the four General spellings (SPEC §1.3): absent, `""`, any ASCII-case
/// variant of `main`, any ASCII-case variant of `General`. No trimming, no Unicode folding.
[[nodiscard]] bool is_general_chat(std::optional<std::string_view> chat) noexcept;

/// Whether two chat identities name the same conversation (SPEC §1.3): if either is a
/// General spelling, both must be; otherwise exact byte equality, case included.
[[nodiscard]] bool same_conversation(std::optional<std::string_view> a,
                                     std::optional<std::string_view> b) noexcept;

/// A host's runtime conversation (SPEC §1.3): a desk by id and name, and the thread inside
/// it (`thread_root`, absent for the desk's channel itself).
struct Conversation {
  std::string desk_id{};
  std::string desk_name{};
  std::optional<Sequence> thread_root{};

  /// General when either the desk id or the desk name is a General spelling.
  [[nodiscard]] bool is_general() const noexcept;
  /// Same thread root and either both General or neither General with equal desk ids.
  [[nodiscard]] bool equivalent_to(const Conversation& other) const noexcept;

  friend bool operator==(const Conversation&, const Conversation&) = default;
};

/// The conversation half of a dispatch idempotency scope (SPEC §3.1, §3.3): a canonical
/// desk id and the exact thread root (absent = the desk's channel, distinct from every
/// thread). Wire: `thread_root` is a required, nullable key.
struct DispatchConversation {
  std::string desk_id{};
  std::optional<Sequence> thread_root{};

  /// The canonical scope of `conversation` (SPEC §1.3): `desk_id` becomes `"General"` when
  /// the conversation is General by id or name, else the desk id verbatim (case kept);
  /// the thread root is copied exactly.
  [[nodiscard]] static DispatchConversation from(const Conversation& conversation);

  friend bool operator==(const DispatchConversation&, const DispatchConversation&) = default;
};

}  // namespace thm
