#include "signatures.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace thm::python {
namespace {

namespace py = pybind11;

// The builtin under a pybind11 function or method, or null.
PyCFunctionObject* builtin(py::handle function) {
  PyObject* object = function.ptr();
  if (PyInstanceMethod_Check(object)) object = PyInstanceMethod_GET_FUNCTION(object);
  if (PyObject_TypeCheck(object, &PyStaticMethod_Type)) {
    object = py::handle(object).attr("__func__").ptr();
  }
  return PyCFunction_Check(object) ? reinterpret_cast<PyCFunctionObject*>(object) : nullptr;
}

struct Parameter {
  std::string name;  // with a leading `*` or `**`, or `*` or `/` alone
  std::string default_value;
};

// `text` split at its top-level ", " (not inside brackets or quotes).
std::vector<std::string> top_level(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.emplace_back(text.substr(start, i - start));
      start = i + 2;  // pybind11 writes ", "
    }
  }
  if (start < text.size()) parts.emplace_back(text.substr(start));
  return parts;
}

// The parameters of pybind11's line `name(a: T, *, b: T = None) -> R`.
std::vector<Parameter> parameters_of(std::string_view line) {
  const std::size_t open = line.find('(');
  const std::size_t close = line.rfind(") -> ");
  std::vector<Parameter> out;
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return out;
  for (const std::string& part : top_level(line.substr(open + 1, close - open - 1))) {
    const std::size_t colon = part.find(": ");
    const std::size_t equals = part.find(" = ");
    Parameter parameter{.name = part.substr(0, colon == std::string::npos ? part.size() : colon),
                        .default_value = ""};
    if (equals != std::string::npos) parameter.default_value = part.substr(equals + 3);
    out.push_back(parameter);
  }
  return out;
}

// `( … )` for `parameters`; a method's first, `self`, is positional only.
std::string rendered(const std::vector<Parameter>& parameters) {
  std::string out = "(";
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Parameter& parameter = parameters[i];
    if (i > 0) out += ", ";
    if (i == 0 && parameter.name == "self") {
      out += "self, /";  // no `$`: pybind11 binds its builtins to a capsule, which inspect would
                         // drop as `self`
      continue;
    }
    out += parameter.name;
    if (!parameter.default_value.empty()) out += "=" + parameter.default_value;
  }
  return out + ")";
}

// The union of the overloads' parameters, in order of first appearance; one that some
// overload lacks gets a default (`None`: it may be left out).
std::vector<Parameter> merged(const std::vector<std::vector<Parameter>>& overloads) {
  std::vector<Parameter> out;
  for (const auto& overload : overloads) {
    for (const Parameter& parameter : overload) {
      bool known = false;
      for (const Parameter& seen : out) known = known || seen.name == parameter.name;
      if (!known) out.push_back(parameter);
    }
  }
  for (Parameter& parameter : out) {
    for (const auto& overload : overloads) {
      bool has = false;
      for (const Parameter& other : overload) has = has || other.name == parameter.name;
      if (!has && parameter.default_value.empty() && parameter.name != "*") {
        parameter.default_value = "None";
      }
    }
  }
  return out;
}

// The docstring without pybind11's signature lines' types: each `name(…) -> R` line (one, or
// `N. name(…) -> R` per overload) becomes `name(parameters)`.
std::string cleaned(const std::string& doc, const std::string& name,
                    std::vector<std::vector<Parameter>>& overloads) {
  std::string out;
  std::size_t start = 0;
  while (start <= doc.size()) {
    std::size_t end = doc.find('\n', start);
    if (end == std::string::npos) end = doc.size();
    std::string line = doc.substr(start, end - start);
    const std::size_t dot = line.find(". " + name + "(");
    const bool numbered =
        dot != std::string::npos && dot > 0 && line.find(") -> ") != std::string::npos;
    const bool single =
        start == 0 && line.starts_with(name + "(") && line.find(") -> ") != std::string::npos;
    if (numbered || single) {
      const std::string signature = numbered ? line.substr(dot + 2) : line;
      overloads.push_back(parameters_of(signature));
      line =
          (numbered ? line.substr(0, dot + 2) : std::string()) + name + rendered(overloads.back());
    }
    if (!(start == 0 && (single || line.starts_with(name + "(*args, **kwargs)")))) {
      out += line + (end < doc.size() ? "\n" : "");
    }
    start = end + 1;
  }
  while (out.starts_with("\n")) out.erase(0, 1);
  return out;
}

void replace_doc(PyCFunctionObject* function, const std::string& doc) {
  PyMethodDef* method = function->m_ml;
  char* old = const_cast<char*>(method->ml_doc);
  method->ml_doc = strdup(doc.c_str());  // pybind11 frees it with the function (std::free)
  std::free(old);
}

}  // namespace

void set_text_signature(py::handle function, const std::string& parameters) {
  PyCFunctionObject* found = builtin(function);
  if (found == nullptr) return;
  const std::string name = found->m_ml->ml_name;
  std::vector<std::vector<Parameter>> overloads;
  std::string doc = found->m_ml->ml_doc == nullptr ? "" : found->m_ml->ml_doc;
  if (const std::size_t marker = doc.find("\n--\n\n"); marker != std::string::npos) {
    doc.erase(0, marker + 5);  // the text signature set before
  }
  replace_doc(found, name + parameters + "\n--\n\n" + cleaned(doc, name, overloads));
}

void add_text_signatures(py::module_& module) {
  std::vector<py::handle> functions;
  for (const auto item : module.attr("__dict__").cast<py::dict>()) {
    functions.push_back(item.second);
    if (PyType_Check(item.second.ptr())) {
      for (const auto member : item.second.attr("__dict__").cast<py::dict>()) {
        functions.push_back(member.second);
      }
    }
  }
  for (const py::handle function : functions) {
    PyCFunctionObject* found = builtin(function);
    if (found == nullptr || found->m_ml->ml_doc == nullptr) continue;
    const std::string doc = found->m_ml->ml_doc;
    if (doc.find("\n--\n\n") != std::string::npos) continue;
    const std::string name = found->m_ml->ml_name;
    std::vector<std::vector<Parameter>> overloads;
    const std::string rest = cleaned(doc, name, overloads);
    if (overloads.empty()) continue;
    replace_doc(found, name + rendered(merged(overloads)) + "\n--\n\n" + rest);
  }
}

}  // namespace thm::python
