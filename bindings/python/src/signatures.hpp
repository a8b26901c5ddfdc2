#pragma once
// What help() and inspect.signature show for the module's functions and methods. CPython
// reads a builtin's `__text_signature__` from the start of its docstring,
// `name(parameters)\n--\n\n`; pybind11 writes its own signature line there instead, with the
// C++ parameter types (`request: handle`), which inspect cannot read. These replace it.

#include <pybind11/pybind11.h>

#include <string>

namespace thm::python {

/// Makes `parameters` (e.g. `(self, /, *, id, label=...)`) the text signature of `function`
/// (a pybind11 function or method), keeping its docstring after pybind11's signature line.
void set_text_signature(pybind11::handle function, const std::string& parameters);

/// Gives every function of `module`, and every method of its classes, a text signature
/// made from pybind11's own signature line: the parameter names, `*`, `/` and defaults,
/// without the C++ types; for an overloaded function, the union of its overloads' parameters
/// (one some overload lacks gets a default). One that already has a text signature keeps it.
void add_text_signatures(pybind11::module_& module);

}  // namespace thm::python
