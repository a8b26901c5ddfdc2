// The extension module `thm._thm` (adr/0013): the core's values, its operations, and
// `from_json(type, value)` for every wire type. `thm/__init__.py` re-exports it.
#include <pybind11/pybind11.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <string>

#include "convert.hpp"
#include "json_bridge.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"
#include "value_class.hpp"
#include "values.hpp"

namespace thm::python {
namespace {

using namespace pybind11::literals;
using Decoder = std::function<py::object(py::handle, const std::string&)>;

template <class T>
Decoder decoder() {
  return
      [](py::handle value, const std::string& root) { return to_py(wire_from_py<T>(value, root)); };
}

// Every wire type of the case files by its name (cases.md, the `decode` operation).
const std::map<std::string, Decoder, std::less<>>& decoders() {
  static const std::map<std::string, Decoder, std::less<>> table{
      {"MentionTarget", decoder<MentionTarget>()},
      {"MentionAuthor", decoder<MentionAuthor>()},
      {"Mention", decoder<Mention>()},
      {"RosterMember", decoder<RosterMember>()},
      {"Person", decoder<Person>()},
      {"RosterSnapshot", decoder<RosterSnapshot>()},
      {"ResponderMode", decoder<ResponderMode>()},
      {"Desk", decoder<Desk>()},
      {"DeskMember", decoder<DeskMember>()},
      {"DeskOrder", decoder<DeskOrder>()},
      {"DeskSnapshot", decoder<DeskSnapshot>()},
      {"SelectorCandidate", decoder<SelectorCandidate>()},
      {"SelectionPolicy", decoder<SelectionPolicy>()},
      {"ResponderRequest", decoder<ResponderRequest>()},
      {"SelectionRequest", decoder<SelectionRequest>()},
      {"ResponderRung", decoder<ResponderRung>()},
      {"SelectionDisposition", decoder<SelectionDisposition>()},
      {"ResponderDecision", decoder<ResponderDecision>()},
      {"ResponderPlan", decoder<ResponderPlan>()},
      {"Probability", decoder<Probability>()},
      {"CandidateProbability", decoder<CandidateProbability>()},
      {"SelectionEvaluation", decoder<SelectionEvaluation>()},
      {"SelectorResult", decoder<SelectorResult>()},
      {"MentionDispatchPolicy", decoder<MentionDispatchPolicy>()},
      {"DispatchKey", decoder<DispatchKey>()},
      {"DispatchConversation", decoder<DispatchConversation>()},
      {"MentionDispatchInput", decoder<MentionDispatchInput>()},
      {"MentionTurnRequest", decoder<MentionTurnRequest>()},
      {"NoDispatchReason", decoder<NoDispatchReason>()},
      {"MentionDispatchDecision", decoder<MentionDispatchDecision>()},
      {"EnqueueRefusal", decoder<EnqueueRefusal>()},
      {"EnqueueOutcome", decoder<EnqueueOutcome>()},
      {"MentionDispatchOutcome", decoder<MentionDispatchOutcome>()},
      {"Conversation", decoder<Conversation>()},
      {"MentionDispatchContext", decoder<MentionDispatchContext>()},
      {"QueueErrorKind", decoder<QueueErrorKind>()},
      {"QueueError",
       [](py::handle value, const std::string& root) -> py::object {
         const QueueError error = wire_from_py<QueueError>(value, root);
         return py::module_::import("thm._errors")
             .attr("QueueError")(std::string(name(error.kind)), error.message);
       }},
      {"Brevity", decoder<Brevity>()},
      {"BriefedTeammate", decoder<BriefedTeammate>()},
      {"TeamBriefing", decoder<TeamBriefing>()},
  };
  return table;
}

py::object from_json(py::handle type_name_value, py::handle value, py::handle root_value) {
  const auto type = from_py<std::string>(type_name_value, "from_json(type)");
  const auto root = from_py<std::string>(root_value, "from_json(root)");
  const auto found = decoders().find(type);
  if (found == decoders().end()) {
    throw py::value_error("from_json: unknown wire type '" + type + "' (see thm.WIRE_TYPES)");
  }
  return found->second(value, root);
}

}  // namespace
}  // namespace thm::python

PYBIND11_MODULE(_thm, m) {
  using namespace thm::python;
  m.doc() =
      "thm's core, bound natively: who answers a message, and whether an agent's reply "
      "may start exactly one more agent turn.";
  m.attr("__version__") = THM_VERSION;
  bind_values(m);
  bind_operations(m);
  m.def("from_json", &from_json, "type"_a, "value"_a, py::kw_only(), "root"_a = "",
        "Decodes `value`, JSON-shaped Python, as the wire type named `type` (SPEC §6): a value "
        "class, an alternative of a variant, an enum member, or a thm.QueueError; raises "
        "thm.DecodeError whose `path` is a JSON Pointer under `root`.");
  py::list wire_types;
  for (const auto& [name, decode] : decoders()) wire_types.append(name);
  m.attr("WIRE_TYPES") = py::tuple(wire_types);
  // Each variant as the union of its alternatives' classes: `isinstance(x, thm.ResponderPlan)`.
  const auto alternatives = [&](const char* variant, std::initializer_list<const char*> names) {
    py::object joined = m.attr(*names.begin());
    for (const char* name : names) joined = joined.attr("__or__")(m.attr(name));
    m.attr(variant) = joined;
  };
  alternatives("MentionTarget", {"AgentTarget", "PersonTarget", "DeskTarget", "EveryoneTarget"});
  alternatives("MentionAuthor", {"AgentAuthor", "PersonAuthor", "OtherAuthor"});
  alternatives("ResponderPlan", {"Decided", "Select"});
  alternatives("SelectorResult",
               {"SelectorAbsent", "SelectorFailed", "SelectorText", "SelectorEvaluation"});
  alternatives("MentionDispatchDecision", {"NoDispatch", "DispatchOne"});
  alternatives("EnqueueOutcome", {"Enqueued", "Already", "Refused"});
  alternatives("MentionDispatchOutcome", {"NotDispatched", "Enqueued", "Already", "Refused"});
}
