#pragma once
// The core's value classes, bound into the module `thm._thm`.

#include <pybind11/pybind11.h>

namespace thm::python {

/// Binds every value class and enum into `module`.
void bind_values(pybind11::module_& module);

/// Binds the operations (operations.cpp) into `module`.
void bind_operations(pybind11::module_& module);

}  // namespace thm::python
