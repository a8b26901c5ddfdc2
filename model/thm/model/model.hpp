#pragma once
/// \file
/// The reference model (`thm::model`): SPEC.md written again, as plainly as possible, to be
/// the oracle the core is checked against. It shares no code with `core/` (its include
/// path does not even reach it) and links only ICU, for Unicode facts. Obviously right beats
/// fast: linear scans, no caches. Variants are spelled with their wire tokens
/// (`"self_mention"`, `"agent"`), so that a disagreement prints readably.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace thm::model {

// ---- §1.1 roster, §1.2 desks -------------------------------------------------------------

struct Member {
  std::string id;
  std::optional<std::string> name;
};
struct Person {
  std::string id;
  std::string label;
};
struct Roster {
  std::vector<Member> members;
  std::vector<Person> people;
  std::vector<std::string> retired;
  std::vector<std::string> tombstoned;
};

struct Desk {
  std::string id;
  std::string name;
  std::optional<std::string> description;
  std::vector<std::string> members;
  bool auto_mode = false;  // responder_mode "auto"; "lead" otherwise
};
struct DeskMember {
  std::string desk_id;
  std::string agent_id;
};
struct DeskOrder {
  std::string desk_id;
  std::vector<std::string> ordered;
};
struct Desks {
  std::vector<Desk> declared;
  std::vector<Desk> added;
  std::vector<DeskMember> member_additions;
  std::vector<DeskOrder> orders;
  std::vector<std::string> retired;
  std::vector<std::string> tombstoned;
};

/// A typed error as the case files write it: the variant name and its fields in order.
struct Error {
  std::string variant;
  std::vector<std::pair<std::string, std::string>> fields;
  bool operator==(const Error&) const = default;
};

/// A value or an error (exactly one is set).
template <class T>
struct Answer {
  std::optional<T> value;
  std::optional<Error> error;
};

/// §1.1: the first structural error of the roster, or nothing.
std::optional<Error> validate_roster(const Roster& roster);
/// §1.1: a member that is neither retired nor tombstoned.
bool is_active(const Roster& roster, const std::string& agent_id);
/// §1.2: the first structural error of the desks, or nothing.
std::optional<Error> validate_desks(const Desks& desks);
/// §1.2 `resolve_id`: the canonical desk id of an id or unique name.
Answer<std::string> resolve_desk(const Desks& desks, const std::string& identity);
/// §1.2: the effective members of a desk.
Answer<std::vector<std::string>> desk_members(const Desks& desks, const std::string& identity);

// ---- §1.3 chat identity ----------------------------------------------------------------------

/// §1.3: one of the four General spellings.
bool is_general_chat(const std::optional<std::string>& chat);
/// §1.3: General matches only General; otherwise exact bytes.
bool same_conversation(const std::optional<std::string>& a, const std::optional<std::string>& b);

struct Conversation {
  std::string desk_id;
  std::string desk_name;
  std::optional<std::uint64_t> thread_root;
};
struct DispatchConversation {
  std::string desk_id;
  std::optional<std::uint64_t> thread_root;
  bool operator==(const DispatchConversation&) const = default;
};
/// §1.3: the canonical dispatch scope of a conversation.
DispatchConversation dispatch_conversation(const Conversation& conversation);

// ---- §1.4, §1.5 mentions ---------------------------------------------------------------------

struct Target {
  std::string kind;  // "agent", "person", "desk" or "everyone"
  std::string id;    // empty for "everyone"
  bool operator==(const Target&) const = default;
};
struct Mention {
  Target target;
  std::string text;
  std::size_t offset = 0;
  bool quiet = false;
  bool operator==(const Mention&) const = default;
};
struct Author {
  std::string kind;  // "agent", "person" or "other"
  std::string id;
};

/// §1.5: extraction (or revalidation of `supplied`) and normalization.
std::vector<Mention> resolve_mentions(const std::string& body,
                                      const std::optional<std::vector<Mention>>& supplied,
                                      const Author& author, const Roster& roster,
                                      const Desks& desks);
/// §1.5 consumers: the first non-quiet mention of an active agent.
std::optional<std::string> direct_responder(const std::vector<Mention>& mentions,
                                            const Roster& roster);
/// §1.5 consumers: the active agents a message brings in.
std::vector<std::string> mentioned_members(const std::vector<Mention>& mentions,
                                           const std::optional<std::string>& addressed_desk,
                                           const std::optional<std::string>& responder,
                                           const Roster& roster, const Desks& desks);

/// The masked (code) bytes of `body` (§1.5 code masking v2): `mask[i]` for byte i.
std::vector<bool> code_mask(const std::string& body);

// ---- §2 responder ladder and selection ---------------------------------------------------------

struct Candidate {
  std::string id;
  std::string label;
  std::string role;
  std::optional<std::string> description;
  bool operator==(const Candidate&) const = default;
};
struct ResponderRequest {
  std::string message;
  std::optional<std::string> chat;
  std::vector<Mention> mentions;
  std::string orchestrator_id;
  bool selection_allowed = true;
  std::optional<std::string> thread_responder{};  // who answered last in the thread, if given
};
/// §8.2: one step of a decision's trace, in wire tokens; `why` is empty when there is none.
struct Step {
  std::string rule;
  std::string outcome;  // "applied", "passed", "skipped" or "stopped"
  std::string why;
  std::string subject;
  std::optional<std::uint64_t> offset;
  std::optional<std::uint64_t> count;
  bool operator==(const Step&) const = default;
};
/// Where a decision writes its steps when the caller asks for them (§8), or null.
using Trace = std::vector<Step>*;

struct Decision {
  std::string responder_id;
  std::string rung;         // "explicit_mention", "auto_selection", ...
  std::string disposition;  // "not_applicable", "selected", ...
  bool operator==(const Decision&) const = default;
};
struct Plan {
  bool select = false;  // false: `decision` is decided; true: ask a selector
  Decision decision;    // the decision, or the fallback of a select plan
  std::string message;
  std::string desk_id;
  std::vector<Candidate> candidates;
};
/// §2.2, §2.3: the responder ladder; its steps go to `trace` when one is given (§8).
Answer<Plan> responder_plan(const ResponderRequest& request, const Roster& roster,
                            const Desks& desks, const std::vector<Candidate>& details,
                            Trace trace = nullptr);

/// §2.5: a free-text selector answer, normalized and matched ASCII case-insensitively.
std::optional<std::string> accept_selection(const std::string& output,
                                            const std::vector<Candidate>& candidates);

struct Evaluation {
  std::string choice;
  std::vector<std::pair<std::string, std::uint32_t>> probabilities;  // candidate id, ppm
  std::uint32_t confidence = 0;
};
/// §2.6 [v3]: a typed selector answer.
std::optional<std::string> accept_evaluation(const Evaluation& evaluation,
                                             const std::vector<Candidate>& candidates,
                                             std::uint32_t minimum_confidence);

struct Selector {
  std::string kind;  // "absent", "failed", "text" or "evaluation"
  std::string output;
  Evaluation evaluation;
  std::uint32_t minimum_confidence = 0;
};
/// §2.6: the decision once the selector (if any) has answered; steps to `trace` (§8).
Decision settle_selection(const Plan& plan, const Selector& selector, Trace trace = nullptr);

// ---- §3 mention_dispatch, §4 dispatch_mention
// ----------------------------------------------------

struct Policy {
  bool enabled = false;
  std::uint32_t max_hops = 0;
  bool no_return = false;
  std::optional<std::uint32_t> max_turns_per_agent{};
  /// (from, to) pairs; nothing means every hand-off is allowed.
  std::optional<std::vector<std::pair<std::string, std::string>>> allowed_handoffs{};
};
struct DispatchInput {
  std::uint64_t trigger_sequence = 0;
  DispatchConversation conversation;
  std::string author_id;
  std::string content;
  std::vector<Mention> mentions;
  std::uint32_t hop = 0;
  std::vector<std::string> chain{};  // authors of the earlier replies of the chain, root first
};
struct TurnRequest {
  std::uint64_t trigger_sequence = 0;
  std::string source_id;
  std::string target_id;
  std::string content;
  DispatchConversation conversation;
  std::uint32_t child_hop = 0;
  bool operator==(const TurnRequest&) const = default;
};
struct DispatchDecision {
  std::string reason;  // empty when one request is admitted
  TurnRequest request;
};
/// §3.2: may a committed reply start one child turn? Steps to `trace` (§8).
Answer<DispatchDecision> mention_dispatch(const Policy& policy, const DispatchInput& input,
                                          const Roster& roster, Trace trace = nullptr);

/// What a scripted host queue answers (cases.md): a status, or a failure.
struct QueueScript {
  bool fail = false;
  std::string status;  // "enqueued", "already", "refused"
  std::string reason;  // for "refused"
  std::string kind;    // for a failure
  std::string message;
};
struct DispatchResult {
  std::string status;  // "not_dispatched", "enqueued", "already", "refused"; "" on error
  std::string reason;
  std::optional<Error> error;  // variant "Core" (fields from the core error) or "Enqueue"
  std::optional<Error> core;
  int queue_calls = 0;
};
/// §4: `mention_dispatch`, then at most one call of the scripted queue.
DispatchResult dispatch_mention(const QueueScript& queue, const Policy& policy,
                                const DispatchInput& input, const Roster& roster);

struct DispatchContext {
  Policy policy;
  std::uint32_t hop = 0;
  std::vector<std::string> chain{};
};
/// §7: the first two guards of §3.2.
bool may_dispatch(const DispatchContext& context);

// ---- §5 wording, §7 briefing -------------------------------------------------------------------

/// The sentence of a refusal, rung or disposition under §5, or nothing for an unknown pair.
/// The model's own words: they pin which sentences are shared, never the core's text.
std::optional<std::string> display(const std::string& type, const std::string& variant);

/// Who a briefing lists (§7 `TeamBriefing::from_snapshots`): the desk it names and the
/// teammates as (id, label) pairs.
struct Briefing {
  std::string desk_id;
  std::string desk_name;
  std::vector<std::pair<std::string, std::string>> teammates;
};
Answer<Briefing> brief(const std::string& viewer_id, const Conversation& conversation,
                       const Desks& desks, const Roster& roster);

/// Whether the briefing of `viewer_id` listing `teammates` shows the dispatch sentence (§7):
/// only with a context that may dispatch and, when a rule of the chain's shape is on, a
/// teammate other than the viewer that every rule that is on lets through.
bool briefing_offers_dispatch(const std::optional<DispatchContext>& context,
                              const std::string& viewer_id,
                              const std::vector<std::string>& teammates);

}  // namespace thm::model
