// responder_plan and settle_selection on structured inputs. An input that starts with `{` is a
// case file's `input` object (`request`, `roster`, `desks`, `candidate_details` in their wire
// forms), so the seeds are the shipped cases; any other input is drawn with `Draw`.
// Invariants: core agrees with the model (plan or error); a decided responder is an active
// member, never by AutoSelection, with a disposition that fits its rung; a Select plan offers
// at least two distinct active candidates, carries the message, and falls back to the first
// candidate as DeskDefault/Unavailable; settling it with its own candidate ids or with no
// selector gives the documented decisions.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <variant>

#include "case_input.hpp"
#include "draw.hpp"
#include "fuzz_check.hpp"
#include "thm/bridge/bridge.hpp"
#include "thm/json/json.hpp"

namespace {

struct PlanCase {
  thm::ResponderRequest request;
  thm::RosterSnapshot roster;
  thm::DeskSnapshot desks;
  std::vector<thm::SelectorCandidate> details;
};

std::optional<PlanCase> from_case_input(std::string_view text) {
  const auto input = thm::json::parse(text);
  if (!input || !input->is_object() || !input->contains("candidate_details")) return std::nullopt;
  auto request = thm::fuzz::case_member<thm::ResponderRequest>(*input, "request");
  auto roster = thm::fuzz::case_member<thm::RosterSnapshot>(*input, "roster");
  auto desks = thm::fuzz::case_member<thm::DeskSnapshot>(*input, "desks");
  if (!request || !roster || !desks || !(*input)["candidate_details"].is_array())
    return std::nullopt;
  PlanCase c{*std::move(request), *std::move(roster), *std::move(desks), {}};
  for (const auto& detail : (*input)["candidate_details"]) {
    auto candidate = thm::json::from_value<thm::SelectorCandidate>(detail);
    if (!candidate) return std::nullopt;
    c.details.push_back(*std::move(candidate));
  }
  return c;
}

PlanCase drawn(FuzzedDataProvider& bytes) {
  thm::fuzz::Draw draw(bytes);
  PlanCase c;
  c.roster = draw.roster();
  c.desks = draw.desks();
  c.details.resize(draw.count(3));
  for (auto& d : c.details)
    d = {.id = draw.name(),
         .label = draw.name(),
         .role = draw.name(),
         .description = draw.maybe_name()};
  static constexpr std::array<std::string_view, 4> kChatPrefixes{"", "dm:", "DM:", "General"};
  c.request.chat =
      draw.coin() ? std::optional(std::string(bytes.PickValueInArray(kChatPrefixes)) + draw.name())
                  : std::nullopt;
  c.request.mentions = draw.mentions();
  c.request.orchestrator_id = draw.name();
  c.request.selection_policy =
      draw.coin() ? thm::SelectionPolicy::Allowed : thm::SelectionPolicy::Disabled;
  c.request.thread_responder = draw.maybe_name();
  c.request.message = draw.rest();
  return c;
}

void check_decision(const thm::ResponderDecision& d, const thm::Roster& roster) {
  using Rung = thm::ResponderRung;
  using Disposition = thm::SelectionDisposition;
  THM_FUZZ_CHECK(roster.is_active(d.responder_id));
  THM_FUZZ_CHECK(d.rung != Rung::AutoSelection);
  THM_FUZZ_CHECK(d.disposition == Disposition::NotApplicable ||
                 (d.rung == Rung::DeskDefault && d.disposition == Disposition::Disabled));
}

void check_select(const thm::Select& select, const PlanCase& c, const thm::Roster& roster) {
  const auto& candidates = select.request.candidates;
  THM_FUZZ_CHECK(candidates.size() >= 2);
  std::set<std::string> ids;
  for (const auto& candidate : candidates) {
    THM_FUZZ_CHECK(roster.is_active(candidate.id));
    THM_FUZZ_CHECK(ids.insert(candidate.id).second);
  }
  THM_FUZZ_CHECK(select.request.message == c.request.message);
  const thm::ResponderDecision fallback{candidates.front().id, thm::ResponderRung::DeskDefault,
                                        thm::SelectionDisposition::Unavailable};
  THM_FUZZ_CHECK(select.fallback == fallback);

  const thm::ResponderPlan plan = select;
  THM_FUZZ_CHECK(thm::settle_selection(plan, thm::SelectorAbsent{}) == fallback);
  THM_FUZZ_CHECK(thm::settle_selection(plan, thm::SelectorFailed{}) == fallback);
  for (const auto& candidate : candidates) {
    const auto settled = thm::settle_selection(plan, thm::SelectorText{candidate.id});
    if (settled.disposition == thm::SelectionDisposition::Selected) {
      THM_FUZZ_CHECK(settled.rung == thm::ResponderRung::AutoSelection &&
                     settled.responder_id == candidate.id);
    } else {  // only an ASCII case twin among the candidates makes an exact id ambiguous
      THM_FUZZ_CHECK(settled.disposition == thm::SelectionDisposition::InvalidOutput);
      THM_FUZZ_CHECK(settled.responder_id == fallback.responder_id);
    }
  }
}

void check(const PlanCase& c) {
  const thm::Roster roster(c.roster);
  const thm::DeskSet desks(c.desks);
  // The prepared path first (adr/0016); snapshots no team holds run on the views.
  const auto team = thm::Team::prepare(c.roster, c.desks);
  const auto on_views = thm::responder_plan(c.request, roster, desks, c.details);
  const auto core = team ? thm::responder_plan(c.request, *team, c.details) : on_views;
  THM_FUZZ_CHECK(core == on_views);
  std::vector<thm::model::Step> model_trace;
  const auto model = thm::model::responder_plan(
      thm::bridge::to_model(c.request), thm::bridge::to_model(c.roster),
      thm::bridge::to_model(c.desks), thm::bridge::to_model(c.details), &model_trace);
  // SPEC §8: the traced call plans alike and takes the model's steps.
  thm::DecisionTrace trace;
  THM_FUZZ_CHECK(thm::responder_plan(c.request, roster, desks, c.details, trace) == on_views);
  THM_FUZZ_CHECK(thm::bridge::to_model(trace) == model_trace);
  THM_FUZZ_CHECK(core.has_value() == model.value.has_value());
  if (!core) {
    THM_FUZZ_CHECK(thm::bridge::to_model_error(core.error()) == *model.error);
    return;
  }
  THM_FUZZ_CHECK(*core == thm::bridge::to_core(*model.value));
  if (const auto* decided = std::get_if<thm::Decided>(&*core)) {
    check_decision(decided->decision, roster);
    // SPEC §2.2 step 2: an active thread responder answers unless a mention did.
    const bool keeps = c.request.thread_responder && roster.is_active(*c.request.thread_responder);
    if (decided->decision.rung == thm::ResponderRung::ThreadResponder) {
      THM_FUZZ_CHECK(keeps && decided->decision.responder_id == *c.request.thread_responder);
    } else if (keeps) {
      THM_FUZZ_CHECK(decided->decision.rung == thm::ResponderRung::ExplicitMention);
    }
  } else {
    THM_FUZZ_CHECK(!c.request.thread_responder || !roster.is_active(*c.request.thread_responder));
    check_select(std::get<thm::Select>(*core), c, roster);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return thm::fuzz::run_structured(data, size, from_case_input, drawn, check);
}
