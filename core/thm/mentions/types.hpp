#pragma once
/// \file
/// Mention value types (SPEC §1.4). Resolution of `@mentions` in text (SPEC §1.5) builds on
/// these; `mention_dispatch` and the responder ladder read them.

#include <cstddef>
#include <string>
#include <variant>

namespace thm {

/// At most this many non-quiet mentions survive normalization (SPEC §1.4 `MENTION_CAP`).
inline constexpr std::size_t kMentionCap = 50;

/// A mention of an agent, by canonical agent id (SPEC §1.4 `Agent{id}`).
struct AgentTarget {
  std::string id{};
  friend bool operator==(const AgentTarget&, const AgentTarget&) = default;
};
/// A mention of a person, by person id (SPEC §1.4 `Person{id}`).
struct PersonTarget {
  std::string id{};
  friend bool operator==(const PersonTarget&, const PersonTarget&) = default;
};
/// A mention of a desk, by canonical desk id (SPEC §1.4 `Desk{id}`).
struct DeskTarget {
  std::string id{};
  friend bool operator==(const DeskTarget&, const DeskTarget&) = default;
};
/// `@everyone`, `@channel` or `@here` (SPEC §1.4 `Everyone`).
struct EveryoneTarget {
  friend bool operator==(const EveryoneTarget&, const EveryoneTarget&) = default;
};

/// Who a mention names (SPEC §1.4). Wire: internally tagged by `kind`
/// (`agent`, `person`, `desk`, `everyone`).
using MentionTarget = std::variant<AgentTarget, PersonTarget, DeskTarget, EveryoneTarget>;

/// One mention in a message body (SPEC §1.4). `text` is the exact authored span including
/// `@` or `@#`; `offset` is the UTF-8 byte offset of the `@` in the original body; a `quiet`
/// mention is context only: it never pings and never routes.
struct Mention {
  MentionTarget target{};
  std::string text{};
  std::size_t offset = 0;
  bool quiet = false;
  friend bool operator==(const Mention&, const Mention&) = default;
};

/// A message written by an agent (SPEC §1.4 `MentionAuthor::Agent`).
struct AgentAuthor {
  std::string id{};
  friend bool operator==(const AgentAuthor&, const AgentAuthor&) = default;
};
/// A message written by a person (SPEC §1.4 `MentionAuthor::Person`).
struct PersonAuthor {
  std::string id{};
  friend bool operator==(const PersonAuthor&, const PersonAuthor&) = default;
};
/// A message from anyone else, e.g. the system (SPEC §1.4 `MentionAuthor::Other`).
struct OtherAuthor {
  friend bool operator==(const OtherAuthor&, const OtherAuthor&) = default;
};

/// The author of a message, used to drop self-mentions (SPEC §1.4). Wire: tagged by `kind`
/// (`agent`, `person`, `other`).
using MentionAuthor = std::variant<AgentAuthor, PersonAuthor, OtherAuthor>;

}  // namespace thm
