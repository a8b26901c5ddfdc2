// The extension module `thm._thm` (adr/0013): the core's values, its operations, and
// `from_json(type, value)` for every wire type. `thm/__init__.py` re-exports it.
#include <pybind11/pybind11.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include "convert.hpp"
#include "json_bridge.hpp"
#include "signatures.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"
#include "value_class.hpp"
#include "values.hpp"

namespace thm::python {
namespace {

using namespace pybind11::literals;
// `value` decoded as the wire type `T`, as Python: a value, an alternative of a variant, an
// enum member, or (for `QueueError`) the exception thm raises for one.
template <class T>
py::object decoded(py::handle value, const std::string& root) {
  if constexpr (std::is_same_v<T, QueueError>) {
    const QueueError error = wire_from_py<QueueError>(value, root);
    return py::module_::import("thm._errors")
        .attr("QueueError")(std::string(name(error.kind)), error.message);
  } else {
    return to_py(wire_from_py<T>(value, root));
  }
}

py::object from_json(py::handle type_name_value, py::handle value, py::handle root_value) {
  const auto type = from_py<std::string>(type_name_value, "from_json(type)");
  const auto root = from_py<std::string>(root_value, "from_json(root)");
  py::object out;
  const bool known = json::visit_wire_type(
      type, [&]<class T>(std::type_identity<T>) { out = decoded<T>(value, root); });
  if (!known) {
    throw py::value_error("from_json: unknown wire type '" + type + "' (see thm.WIRE_TYPES)");
  }
  return out;
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
  for (const std::string_view name : thm::json::kWireTypeNames) {
    wire_types.append(py::str(name.data(), name.size()));
  }
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
  add_text_signatures(m);  // last: every function and method is defined
}
