// The reference model, everything but mention resolution (see mentions.cpp). Each function
// names the SPEC rule it encodes.
#include "thm/model/model.hpp"

#include <algorithm>
#include <limits>

#include "thm/model/unicode.hpp"

namespace thm::model {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

Error error(std::string variant, std::vector<std::pair<std::string, std::string>> fields = {}) {
  return Error{std::move(variant), std::move(fields)};
}

std::string ascii_lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
  }
  return text;
}

std::vector<Desk> all_desks(const Desks& desks) {
  std::vector<Desk> all = desks.declared;
  all.insert(all.end(), desks.added.begin(), desks.added.end());
  return all;
}

bool desk_skips(const Desks& desks, const std::string& agent_id) {
  return contains(desks.retired, agent_id) || contains(desks.tombstoned, agent_id);
}

// §1.2 base members: founding members, then membership rows; first appearance; skip
// retired and tombstoned.
std::vector<std::string> base_members(const Desks& desks, const Desk& desk) {
  std::vector<std::string> candidates = desk.members;
  for (const DeskMember& row : desks.member_additions) {
    if (row.desk_id == desk.id) candidates.push_back(row.agent_id);
  }
  std::vector<std::string> base;
  for (const std::string& agent_id : candidates) {
    if (desk_skips(desks, agent_id)) continue;
    if (contains(base, agent_id)) continue;
    base.push_back(agent_id);
  }
  return base;
}

// §8: writes one step when a trace was asked for.
void note(Trace trace, std::string rule, std::string outcome, std::string why = "",
          std::string subject = "", std::optional<std::uint64_t> count = std::nullopt) {
  if (trace == nullptr) return;
  trace->push_back(Step{std::move(rule), std::move(outcome), std::move(why), std::move(subject),
                        std::nullopt, count});
}

// §8.2 `mention`: the mentions in reading order, each skipped for the reason `why_not`
// gives, up to the first it gives none, which is chosen.
template <class WhyNot>
void note_mentions(Trace trace, const std::vector<Mention>& mentions, WhyNot why_not) {
  if (trace == nullptr) return;
  std::vector<Mention> sorted = mentions;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Mention& a, const Mention& b) { return a.offset < b.offset; });
  for (const Mention& mention : sorted) {
    const std::string why = why_not(mention);
    trace->push_back(Step{"mention", why.empty() ? "applied" : "skipped", why, mention.text,
                          mention.offset, std::nullopt});
    if (why.empty()) return;
  }
}

// Why a mention cannot be a direct agent mention by its own fields ("" when it can).
std::string mention_shape(const Mention& mention) {
  if (mention.quiet) return "quiet";
  if (mention.target.kind == "agent") return "";
  return mention.target.kind;  // "person", "desk" or "everyone"
}

}  // namespace

// §1.1 validation: members first (blank after trim, then duplicates), then people.
std::optional<Error> validate_roster(const Roster& roster) {
  std::vector<std::string> seen;
  for (const Member& member : roster.members) {
    if (unicode::trim(member.id).empty()) return error("EmptyRosterMemberId");
    if (contains(seen, member.id))
      return error("DuplicateRosterMemberId", {{"member_id", member.id}});
    seen.push_back(member.id);
  }
  seen.clear();
  for (const Person& person : roster.people) {
    if (unicode::trim(person.id).empty()) return error("EmptyPersonId");
    if (contains(seen, person.id)) return error("DuplicatePersonId", {{"person_id", person.id}});
    seen.push_back(person.id);
  }
  return std::nullopt;
}

// §1.1 active: a member, neither retired nor tombstoned (exact comparison).
bool is_active(const Roster& roster, const std::string& agent_id) {
  bool member = false;
  for (const Member& m : roster.members) member = member || m.id == agent_id;
  return member && !contains(roster.retired, agent_id) && !contains(roster.tombstoned, agent_id);
}

// §1.2 validation, first error wins.
std::optional<Error> validate_desks(const Desks& desks) {
  const std::vector<Desk> all = all_desks(desks);
  std::vector<std::string> ids;
  for (const Desk& desk : all) {
    if (desk.id.empty()) return error("EmptyDeskId");
    if (desk.name.empty()) return error("EmptyDeskName", {{"desk_id", desk.id}});
    if (contains(ids, desk.id)) return error("DuplicateDeskId", {{"desk_id", desk.id}});
    ids.push_back(desk.id);
    if (!(desk.id == "General" && desk.name == "General")) {
      for (const std::string& identity : {desk.id, desk.name}) {
        const std::string lower = ascii_lower(identity);
        if (lower == "general" || lower == "main") {
          return error("ReservedDeskIdentity", {{"identity", identity}});
        }
      }
    }
  }
  for (const DeskMember& row : desks.member_additions) {
    if (!contains(ids, row.desk_id)) return error("UnknownMemberDesk", {{"desk_id", row.desk_id}});
  }
  std::vector<std::string> ordered_desks;
  for (const DeskOrder& order : desks.orders) {
    if (!contains(ids, order.desk_id))
      return error("UnknownOrderDesk", {{"desk_id", order.desk_id}});
    if (contains(ordered_desks, order.desk_id)) {
      return error("DuplicateDeskOrder", {{"desk_id", order.desk_id}});
    }
    ordered_desks.push_back(order.desk_id);
    const Desk* desk = nullptr;
    for (const Desk& d : all) {
      if (d.id == order.desk_id && desk == nullptr) desk = &d;
    }
    const std::vector<std::string> base = base_members(desks, *desk);
    std::vector<std::string> covered;
    for (const std::string& agent_id : order.ordered) {
      if (desk_skips(desks, agent_id)) continue;  // [v2]: stale entries are skipped first
      if (contains(covered, agent_id)) {
        return error("DuplicateOrderMember", {{"desk_id", order.desk_id}, {"agent_id", agent_id}});
      }
      if (!contains(base, agent_id)) {
        return error("UnknownOrderMember", {{"desk_id", order.desk_id}, {"agent_id", agent_id}});
      }
      covered.push_back(agent_id);
    }
    for (const std::string& agent_id : base) {
      if (!contains(covered, agent_id)) {
        return error("IncompleteOrder",
                     {{"desk_id", order.desk_id}, {"missing_agent_id", agent_id}});
      }
    }
  }
  return std::nullopt;
}

// §1.2 resolve_id: validate; exact id; else exactly one exact name.
Answer<std::string> resolve_desk(const Desks& desks, const std::string& identity) {
  if (auto invalid = validate_desks(desks)) return {std::nullopt, invalid};
  const std::vector<Desk> all = all_desks(desks);
  for (const Desk& desk : all) {
    if (desk.id == identity) return {desk.id, std::nullopt};
  }
  std::vector<std::string> named;
  for (const Desk& desk : all) {
    if (desk.name == identity) named.push_back(desk.id);
  }
  if (named.empty()) return {std::nullopt, error("UnknownDesk", {{"identity", identity}})};
  if (named.size() > 1) return {std::nullopt, error("AmbiguousDesk", {{"identity", identity}})};
  return {named[0], std::nullopt};
}

// §1.2 effective members: the stored order without stale entries, else the base members.
Answer<std::vector<std::string>> desk_members(const Desks& desks, const std::string& identity) {
  const Answer<std::string> id = resolve_desk(desks, identity);
  if (id.error) return {std::nullopt, id.error};
  for (const DeskOrder& order : desks.orders) {
    if (order.desk_id != *id.value) continue;
    std::vector<std::string> members;
    for (const std::string& agent_id : order.ordered) {
      if (!desk_skips(desks, agent_id)) members.push_back(agent_id);
    }
    return {members, std::nullopt};
  }
  for (const Desk& desk : all_desks(desks)) {
    if (desk.id == *id.value) return {base_members(desks, desk), std::nullopt};
  }
  return {std::vector<std::string>{}, std::nullopt};
}

// §1.3: absent, empty, or main/General in any ASCII case.
bool is_general_chat(const std::optional<std::string>& chat) {
  if (!chat) return true;
  const std::string lower = ascii_lower(*chat);
  return chat->empty() || lower == "main" || lower == "general";
}

// §1.3: General matches only General; otherwise exact bytes.
bool same_conversation(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (is_general_chat(a) || is_general_chat(b)) return is_general_chat(a) && is_general_chat(b);
  return *a == *b;
}

// §1.3 dispatch scope mapping.
DispatchConversation dispatch_conversation(const Conversation& conversation) {
  const bool general =
      is_general_chat(conversation.desk_id) || is_general_chat(conversation.desk_name);
  return {general ? "General" : conversation.desk_id, conversation.thread_root};
}

namespace {

// A plan that names its responder without asking a selector.
Answer<Plan> decided(std::string id, std::string rung, std::string disposition = "not_applicable") {
  Plan plan;
  plan.decision = {std::move(id), std::move(rung), std::move(disposition)};
  return Answer<Plan>{plan, std::nullopt};
}

// §2.2 step 3: the orchestrator answers when it is active; else no one does.
Answer<Plan> orchestrator_rung(const ResponderRequest& request, const Roster& roster, Trace trace) {
  if (!is_active(roster, request.orchestrator_id)) {
    note(trace, "orchestrator", "stopped", "inactive", request.orchestrator_id);
    return {std::nullopt, error("NoActiveResponder", {{"agent_id", request.orchestrator_id}})};
  }
  note(trace, "orchestrator", "applied", "", request.orchestrator_id);
  return decided(request.orchestrator_id, "orchestrator");
}

// §2.2 step 1: the first direct mention of an active agent answers, if there is one.
std::optional<Answer<Plan>> explicit_mention_rung(const ResponderRequest& request,
                                                  const Roster& roster, Trace trace) {
  note_mentions(trace, request.mentions, [&](const Mention& mention) {
    const std::string shape = mention_shape(mention);
    if (!shape.empty()) return shape;
    return is_active(roster, mention.target.id) ? std::string() : std::string("inactive");
  });
  if (auto mentioned = direct_responder(request.mentions, roster)) {
    note(trace, "explicit_mention", "applied", "", *mentioned);
    return decided(*mentioned, "explicit_mention");
  }
  note(trace, "explicit_mention", "skipped");
  return std::nullopt;
}

// §2.3 the select plan: each candidate with its one detail, or a teammate by default.
Answer<Plan> selector_plan(const ResponderRequest& request, const std::string& desk_id,
                           const std::vector<std::string>& candidates,
                           const std::vector<Candidate>& details, Trace trace) {
  Plan plan;
  plan.select = true;
  plan.decision = {candidates[0], "desk_default", "unavailable"};
  plan.message = request.message;
  plan.desk_id = desk_id;
  for (const std::string& agent_id : candidates) {
    std::vector<Candidate> found;
    for (const Candidate& detail : details) {
      if (detail.id == agent_id) found.push_back(detail);
    }
    if (found.size() > 1) {
      note(trace, "selector_candidates", "stopped", "duplicate_detail", agent_id);
      return {std::nullopt, error("DuplicateSelectorCandidate", {{"agent_id", agent_id}})};
    }
    plan.candidates.push_back(
        found.empty() ? Candidate{agent_id, agent_id, "Teammate", std::nullopt} : found[0]);
  }
  note(trace, "selector_candidates", "applied", "", plan.desk_id, plan.candidates.size());
  return {plan, std::nullopt};
}

// §2.3 the desk plan: the desk's active effective members, then its mode.
Answer<Plan> desk_plan(const ResponderRequest& request, const Roster& roster, const Desks& desks,
                       const std::string& desk_id, const std::vector<Candidate>& details,
                       Trace trace) {
  const Answer<std::vector<std::string>> members = desk_members(desks, desk_id);
  std::vector<std::string> candidates;
  for (const std::string& agent_id : *members.value) {
    if (is_active(roster, agent_id)) candidates.push_back(agent_id);
  }
  const std::string first = candidates.empty() ? "" : candidates[0];
  const auto plan_step = [&](const char* outcome, const char* why) {
    note(trace, "desk_plan", outcome, why, first, candidates.size());
  };
  if (candidates.empty()) {
    plan_step("skipped", "no_active_member");
    return orchestrator_rung(request, roster, trace);
  }
  bool auto_mode = false;
  for (const Desk& desk : all_desks(desks)) {
    if (desk.id == desk_id) auto_mode = desk.auto_mode;
  }
  if (!auto_mode) {
    plan_step("applied", "lead");
    return decided(first, "desk_default");
  }
  if (candidates.size() == 1) {
    plan_step("applied", "one_member");
    return decided(first, "desk_default");
  }
  if (!request.selection_allowed) {
    plan_step("applied", "selection_disabled");
    return decided(first, "desk_default", "disabled");
  }
  plan_step("passed", "selector_asked");
  return selector_plan(request, desk_id, candidates, details, trace);
}

// §2.2 step 2.2: the chat less `dm:` is an active member's id, or exactly one active
// member's name.
std::optional<Answer<Plan>> direct_agent_rung(const std::string& chat, const Roster& roster,
                                              Trace trace) {
  std::string name = chat;
  if (name.rfind("dm:", 0) == 0) name = name.substr(3);
  if (is_active(roster, name)) {
    note(trace, "direct_agent", "applied", "id", name);
    return decided(name, "direct_agent");
  }
  std::vector<std::string> named;
  for (const Member& member : roster.members) {
    if (member.name && *member.name == name && is_active(roster, member.id))
      named.push_back(member.id);
  }
  if (named.size() == 1) {
    note(trace, "direct_agent", "applied", "name", named[0]);
    return decided(named[0], "direct_agent");
  }
  note(trace, "direct_agent", "skipped", "no_match", name);
  return std::nullopt;
}

}  // namespace

// §2.2 and §2.3, rung by rung.
Answer<Plan> responder_plan(const ResponderRequest& request, const Roster& roster,
                            const Desks& desks, const std::vector<Candidate>& details,
                            Trace trace) {
  std::optional<Error> invalid = validate_roster(roster);
  if (!invalid) invalid = validate_desks(desks);
  note(trace, "validate", invalid ? "stopped" : "passed", "", invalid ? invalid->variant : "");
  if (invalid) return {std::nullopt, invalid};

  // Rung 1: an explicit mention.
  if (auto mentioned = explicit_mention_rung(request, roster, trace)) return *mentioned;
  // Rung 2: the agent that answered last in the thread, when the host names one.
  if (request.thread_responder) {
    const std::string& agent = *request.thread_responder;
    if (is_active(roster, agent)) {
      note(trace, "thread_responder", "applied", "", agent);
      return decided(agent, "thread_responder");
    }
    note(trace, "thread_responder", "skipped", "inactive", agent);
  }
  // Rung 3: a named chat.
  if (is_general_chat(request.chat)) {
    note(trace, "chat", "skipped", "general", request.chat.value_or(""));
  } else {
    const Answer<std::string> desk_id = resolve_desk(desks, *request.chat);
    if (desk_id.value) {
      note(trace, "desk", "applied", "", *desk_id.value);
      return desk_plan(request, roster, desks, *desk_id.value, details, trace);
    }
    if (desk_id.error->variant == "AmbiguousDesk") {
      note(trace, "desk", "skipped", "ambiguous", *request.chat);
      return orchestrator_rung(request, roster, trace);
    }
    note(trace, "desk", "skipped", "unknown", *request.chat);
    if (auto direct = direct_agent_rung(*request.chat, roster, trace)) return *direct;
  }
  // Rung 4: the orchestrator.
  return orchestrator_rung(request, roster, trace);
}

// What judging a selector's answer found: the accepted id, or why not (a §8.2 token) and
// about what.
struct Judged {
  std::optional<std::string> accepted;
  std::string why;
  std::string about;
};

// §2.5, step by step.
Judged judge_selection(const std::string& output, const std::vector<Candidate>& candidates) {
  std::string text = unicode::trim(output);   // 1
  if (!text.empty() && text.back() == '.') {  // 2
    text.pop_back();
    text = unicode::trim(text);  // the start is already trimmed, so this trims the end
  }
  if (text.size() >= 2 && (text[0] == '\'' || text[0] == '"' || text[0] == '`') &&
      text.back() == text[0]) {  // 3
    text = unicode::trim(text.substr(1, text.size() - 2));
  }
  if (text.empty()) return {std::nullopt, "empty", text};  // 4
  std::vector<std::string> matches;                        // 5
  for (const Candidate& candidate : candidates) {
    if (ascii_lower(candidate.id) == ascii_lower(text)) matches.push_back(candidate.id);
  }
  if (matches.empty()) return {std::nullopt, "no_candidate", text};
  if (matches.size() > 1) return {std::nullopt, "several_candidates", text};
  return {matches[0], "", ""};
}

std::optional<std::string> accept_selection(const std::string& output,
                                            const std::vector<Candidate>& candidates) {
  return judge_selection(output, candidates).accepted;
}

// §2.6 [v3] accept_evaluation, the rejections in the order the spec lists them. A running
// sum past u32 (more than 4 294 candidates) is reported as `sum_not_scale`, which it also is.
Judged judge_evaluation(const Evaluation& evaluation, const std::vector<Candidate>& candidates,
                        std::uint32_t minimum_confidence) {
  const std::uint32_t scale = 1000000;
  const auto reject = [](std::string why, std::string about = "") {
    return Judged{std::nullopt, std::move(why), std::move(about)};
  };
  if (evaluation.confidence > scale || minimum_confidence > scale) {
    return reject("invalid_confidence");
  }
  if (evaluation.confidence < minimum_confidence) return reject("below_minimum_confidence");
  if (evaluation.probabilities.size() != candidates.size()) return reject("entry_count");
  std::uint64_t sum = 0;
  bool overflow = false;
  for (const Candidate& candidate : candidates) {
    int count = 0;
    std::uint32_t probability = 0;
    for (const auto& [id, ppm] : evaluation.probabilities) {
      if (id == candidate.id) {
        ++count;
        probability = ppm;
      }
    }
    if (count != 1) return reject("not_one_entry", candidate.id);
    if (probability > scale) return reject("invalid_probability", candidate.id);
    sum += probability;
    if (sum > std::numeric_limits<std::uint32_t>::max()) overflow = true;  // running sum
  }
  bool choice_is_candidate = false;
  std::uint32_t chosen = 0;
  for (const Candidate& candidate : candidates)
    choice_is_candidate = choice_is_candidate || candidate.id == evaluation.choice;
  if (!choice_is_candidate) return reject("choice_not_candidate", evaluation.choice);
  for (const auto& [id, ppm] : evaluation.probabilities) {
    if (id == evaluation.choice) chosen = ppm;
  }
  if (overflow || sum != scale) return reject("sum_not_scale");
  for (const auto& [id, ppm] : evaluation.probabilities) {
    if (ppm > chosen) return reject("more_probable_entry", id);
  }
  return {evaluation.choice, "", ""};
}

std::optional<std::string> accept_evaluation(const Evaluation& evaluation,
                                             const std::vector<Candidate>& candidates,
                                             std::uint32_t minimum_confidence) {
  return judge_evaluation(evaluation, candidates, minimum_confidence).accepted;
}

// §2.6 settle_selection.
Decision settle_selection(const Plan& plan, const Selector& selector, Trace trace) {
  if (!plan.select) {
    note(trace, "plan", "applied", "", plan.decision.responder_id);
    return plan.decision;
  }
  const auto fallback = [&](const std::string& disposition) {
    note(trace, "fallback", "applied", disposition, plan.decision.responder_id);
    return Decision{plan.decision.responder_id, "desk_default", disposition};
  };
  if (selector.kind == "absent" || selector.kind == "failed") {
    note(trace, "selector", "skipped", selector.kind);
    return fallback("unavailable");
  }
  note(trace, "selector", "passed", selector.kind);
  Judged judged;
  std::string rule;
  if (selector.kind == "text") {
    rule = "accept_selection";
    judged = judge_selection(selector.output, plan.candidates);
  }
  if (selector.kind == "evaluation") {
    rule = "accept_evaluation";
    judged = judge_evaluation(selector.evaluation, plan.candidates, selector.minimum_confidence);
  }
  if (!judged.accepted) {
    note(trace, rule, "skipped", judged.why, judged.about);
    return fallback("invalid_output");
  }
  note(trace, rule, "applied", "", *judged.accepted);
  return {*judged.accepted, "auto_selection", "selected"};
}

namespace {

// §3.2 steps 7 to 9: the first rule of the chain's shape that refuses `target`, or "" when
// none does. A rule that is off is not looked at and leaves no step.
std::string shape_refusal(const Policy& policy, const std::vector<std::string>& chain,
                          const std::string& author, const std::string& target, Trace trace) {
  if (policy.no_return) {
    const bool back = !chain.empty() && chain[chain.size() - 1] == target;
    note(trace, "no_return", back ? "stopped" : "passed", "", target);
    if (back) return "immediate_return";
  }
  if (policy.max_turns_per_agent) {
    std::uint64_t turns = 0;
    for (const std::string& agent : chain) {
      if (agent == target) ++turns;
    }
    const bool spent = turns >= *policy.max_turns_per_agent;
    note(trace, "agent_turns", spent ? "stopped" : "passed", "", target, turns);
    if (spent) return "agent_turns_spent";
  }
  if (policy.allowed_handoffs) {
    bool listed = false;
    for (const auto& [from, to] : *policy.allowed_handoffs)
      listed = listed || (from == author && to == target);
    note(trace, "handoff", listed ? "passed" : "stopped", "", target);
    if (!listed) return "handoff_not_allowed";
  }
  return "";
}

}  // namespace

// §3.2, first match wins.
Answer<DispatchDecision> mention_dispatch(const Policy& policy, const DispatchInput& input,
                                          const Roster& roster, Trace trace) {
  const auto none = [](const char* reason) {
    DispatchDecision decision;
    decision.reason = reason;
    return Answer<DispatchDecision>{decision, std::nullopt};
  };
  const auto guard = [&](const char* rule, bool held, std::string why = "",
                         std::string subject = "",
                         std::optional<std::uint64_t> count = std::nullopt) {
    note(trace, rule, held ? "passed" : "stopped", held ? "" : why, subject, count);
    return held;
  };
  if (!guard("enabled", policy.enabled)) return none("disabled");              // 1
  if (!guard("hop_budget", input.hop < policy.max_hops, "", "", input.hop)) {  // 2
    return none("hop_limit_reached");
  }
  const std::optional<Error> invalid = validate_roster(roster);  // 3
  if (!guard("validate", !invalid, "", invalid ? invalid->variant : ""))
    return {std::nullopt, invalid};
  if (!guard("source", is_active(roster, input.author_id), "inactive", input.author_id)) {  // 4
    return none("source_inactive");
  }
  const Mention* first = nullptr;  // 5
  for (const Mention& mention : input.mentions) {
    if (mention.quiet || mention.target.kind != "agent") continue;
    if (first == nullptr || mention.offset < first->offset) first = &mention;
  }
  note_mentions(trace, input.mentions, mention_shape);
  if (first == nullptr) {
    note(trace, "target", "stopped");
    return none("no_direct_agent_mention");
  }
  note(trace, "target", "applied", "", first->target.id);
  if (!guard("self_mention", first->target.id != input.author_id))
    return none("self_mention");  // 6
  const std::string shape =
      shape_refusal(policy, input.chain, input.author_id, first->target.id, trace);  // 7-9
  if (!shape.empty()) return none(shape.c_str());
  if (!guard("target_active", is_active(roster, first->target.id), "inactive", first->target.id)) {
    return none("target_inactive");  // 10
  }
  if (!guard("hop_overflow", input.hop != std::numeric_limits<std::uint32_t>::max())) {
    return none("hop_overflow");  // 11
  }
  note(trace, "dispatch", "applied", "", first->target.id, std::uint64_t{input.hop} + 1);  // 12
  DispatchDecision decision;
  decision.request = {input.trigger_sequence, input.author_id,    first->target.id,
                      input.content,          input.conversation, input.hop + 1};
  return {decision, std::nullopt};
}

// §4 dispatch_mention with a scripted queue.
DispatchResult dispatch_mention(const QueueScript& queue, const Policy& policy,
                                const DispatchInput& input, const Roster& roster) {
  DispatchResult result;
  const Answer<DispatchDecision> decision = mention_dispatch(policy, input, roster);
  if (decision.error) {
    result.error = error("Core");
    result.core = decision.error;
    return result;
  }
  if (!decision.value->reason.empty()) {
    result.status = "not_dispatched";
    result.reason = decision.value->reason;
    return result;
  }
  result.queue_calls = 1;
  if (queue.fail) {
    result.error = error("Enqueue", {{"kind", queue.kind}, {"message", queue.message}});
    return result;
  }
  result.status = queue.status;
  result.reason = queue.reason;
  return result;
}

// §7: exactly the two guards of §3.2 steps 1 and 2.
bool may_dispatch(const DispatchContext& context) {
  return context.policy.enabled && context.hop < context.policy.max_hops;
}

// §5: the classification table, with the model's own words for each class.
std::optional<std::string> display(const std::string& type, const std::string& variant) {
  const std::string shared = "no teammate is available for that";
  const std::string off = "handoffs are off here";
  const std::string budget = "the handoff budget is used up";
  if (type == "NoDispatchReason") {
    if (variant == "disabled") return off;
    if (variant == "hop_limit_reached" || variant == "hop_overflow") return budget;
    if (variant == "source_inactive") return "only active teammates can hand off";
    if (variant == "self_mention") return "a handoff cannot go to its own author";
    if (variant == "immediate_return") return "a handoff cannot go straight back to its sender";
    if (variant == "agent_turns_spent") return "that agent has had its turns in this chain";
    if (variant == "no_direct_agent_mention" || variant == "target_inactive" ||
        variant == "handoff_not_allowed") {
      return shared;
    }
  }
  if (type == "EnqueueRefusal") {
    if (variant == "unauthorized" || variant == "target_unavailable") return shared;
    if (variant == "feature_disabled") return off;
  }
  if (type == "ResponderRung") {
    for (const char* rung : {"explicit_mention", "auto_selection", "desk_default", "direct_agent",
                             "orchestrator", "thread_responder"}) {
      if (variant == rung) return "rung " + variant;
    }
  }
  if (type == "SelectionDisposition") {
    for (const char* d :
         {"not_applicable", "selected", "disabled", "unavailable", "invalid_output"}) {
      if (variant == d) return "selection " + variant;
    }
  }
  return std::nullopt;
}

// §7 from_snapshots: validate both; General lists every active member, a desk its active
// effective members; the viewer and repeats are dropped; the label is the name, else the id.
Answer<Briefing> brief(const std::string& viewer_id, const Conversation& conversation,
                       const Desks& desks, const Roster& roster) {
  if (auto invalid = validate_roster(roster)) return {std::nullopt, invalid};
  if (auto invalid = validate_desks(desks)) return {std::nullopt, invalid};
  Briefing briefing;
  std::vector<std::string> candidates;
  if (is_general_chat(conversation.desk_id) || is_general_chat(conversation.desk_name)) {
    briefing.desk_id = "General";
    briefing.desk_name = "General";
    for (const Member& member : roster.members) candidates.push_back(member.id);
  } else {
    const Answer<std::string> id = resolve_desk(desks, conversation.desk_id);
    if (id.error) return {std::nullopt, id.error};
    briefing.desk_id = *id.value;
    for (const Desk& desk : all_desks(desks)) {
      if (desk.id == *id.value) {
        briefing.desk_name = desk.name;
        break;
      }
    }
    candidates = *desk_members(desks, *id.value).value;
  }
  std::vector<std::string> listed{viewer_id};
  for (const std::string& id : candidates) {
    if (!is_active(roster, id) || contains(listed, id)) continue;
    listed.push_back(id);
    std::string label = id;
    for (const Member& member : roster.members) {
      if (member.id == id && member.name && !unicode::trim(*member.name).empty())
        label = *member.name;
    }
    briefing.teammates.emplace_back(id, label);
  }
  return {briefing, std::nullopt};
}

// §7: the dispatch sentence is shown iff there is a context, it may dispatch, and, when
// the chain has a shape, someone listed could be handed the turn.
bool briefing_offers_dispatch(const std::optional<DispatchContext>& context,
                              const std::string& viewer_id,
                              const std::vector<std::string>& teammates) {
  if (!context.has_value() || !may_dispatch(*context)) return false;
  const Policy& policy = context->policy;
  if (!policy.no_return && !policy.max_turns_per_agent && !policy.allowed_handoffs) return true;
  for (const std::string& teammate : teammates) {
    if (teammate != viewer_id &&
        shape_refusal(policy, context->chain, viewer_id, teammate, nullptr).empty()) {
      return true;
    }
  }
  return false;
}

}  // namespace thm::model
