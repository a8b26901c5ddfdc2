#pragma once
// Raising thm's Python exceptions (`thm/_errors.py`) from C++: each is built from the
// case-file form of the core error (`json::error_value`: `variant`, the variant's fields,
// `message`), so its attributes and `to_json()` are the C++ error's, field for field.

#include <pybind11/pybind11.h>

#include "json_bridge.hpp"
#include "thm/json/json.hpp"

namespace thm::python {

namespace py = pybind11;

/// Raises `thm.<exception>(wire)`, where `wire` is a core error's case-file form.
[[noreturn]] inline void raise_error(const char* exception, const json::Value& wire) {
  const py::object type = py::module_::import("thm._errors").attr(exception);
  const py::object error = type(json_to_py(wire));
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

/// Raises `thm.DecodeError` for a value the wire decoder refused (`path`, `reason`).
[[noreturn]] inline void raise_decode_error(const json::DecodeError& error) {
  raise_error("DecodeError", json::error_value(error));
}

}  // namespace thm::python
