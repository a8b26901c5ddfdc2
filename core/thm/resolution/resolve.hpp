#pragma once
/// \file
/// Mention resolution (SPEC §1.5): finding `@mentions` in a message body, revalidating
/// mentions a host supplies, normalizing them, and the two consumers that read them
/// (`direct_responder`, `mentioned_members`).

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/desks/desks.hpp"
#include "thm/mentions/types.hpp"
#include "thm/roster/roster.hpp"
#include "thm/team/team.hpp"

namespace thm {

/// The mentions of `body` (SPEC §1.5), in offset order. Never an error: a roster or desk
/// set that fails validation yields no mentions.
///
/// With `supplied` absent, every `@` that opens (at byte 0, or after ASCII whitespace other
/// than vertical tab, or after `(`, `[`, `{`) and lies outside code (see `code_ranges`) is
/// lexed as a token (`@alias`, or `@#alias` for desks only) and matched against the alias
/// table (active agent ids and names, person labels and their ASCII slugs, desk ids and
/// names, `everyone`/`channel`/`here`) under full Unicode lower-casing; unknown and
/// ambiguous tokens are plain text. With `supplied` present (even empty, which suppresses
/// extraction), each supplied mention is dropped unless its span is exactly a token of the
/// body, and made quiet when that token no longer names its target or the target is not
/// active.
///
/// Then normalization: sorted by offset (stable); a second mention at one offset and
/// self-mentions of `author` are dropped; repeats of a target and mentions past
/// `kMentionCap` pinging ones are made quiet (never dropped). `offset` is a UTF-8 byte
/// offset into `body`; invalid UTF-8 never crashes. Cost: a `memchr` pass for `@` (a body
/// without one returns there); with a token, a search for a code fence and the code mask
/// of the token's paragraph (of the whole body when it holds a fence), and the alias table
/// (linear in roster and desks) built once per call.
[[nodiscard]] std::vector<Mention> resolve_mentions(
    std::string_view body, std::optional<std::span<const Mention>> supplied,
    const MentionAuthor& author, const Roster& roster, const DeskSet& desks);

/// `resolve_mentions` on a prepared team (adr/0016): the same answer, with no validation
/// and no alias table built per call. Cost: the body's scan, then one hash probe per token.
[[nodiscard]] std::vector<Mention> resolve_mentions(
    std::string_view body, std::optional<std::span<const Mention>> supplied,
    const MentionAuthor& author, const Team& team);

/// The agent a message names directly (SPEC §1.5 consumers): the first mention in offset
/// order (ties: list order) that is not quiet, names an agent, and that agent is active.
/// Inactive agents are skipped. Nothing for an invalid roster.
[[nodiscard]] std::optional<std::string> direct_responder(std::span<const Mention> mentions,
                                                          const Roster& roster);

/// `direct_responder` on a prepared team: the same answer, one probe per mention looked at.
[[nodiscard]] std::optional<std::string> direct_responder(std::span<const Mention> mentions,
                                                          const Team& team);

/// The active agents a message brings into the conversation (SPEC §1.5 consumers), in
/// offset order, each once, never `responder`: an agent mention adds that agent if active;
/// a desk mention its active effective members; `@everyone` the active effective members of
/// `addressed_desk` when that is a desk other than General (nothing if it does not
/// resolve), else every active roster member; person mentions add nothing. Empty for an
/// invalid roster or desk set.
[[nodiscard]] std::vector<std::string> mentioned_members(
    std::span<const Mention> mentions, std::optional<std::string_view> addressed_desk,
    std::optional<std::string_view> responder, const Roster& roster, const DeskSet& desks);

/// `mentioned_members` on a prepared team: the same answer, desks expanded from their
/// prepared members.
[[nodiscard]] std::vector<std::string> mentioned_members(
    std::span<const Mention> mentions, std::optional<std::string_view> addressed_desk,
    std::optional<std::string_view> responder, const Team& team);

}  // namespace thm
