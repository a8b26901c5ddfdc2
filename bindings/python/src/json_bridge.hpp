#pragma once
// JSON-shaped Python values (`dict` with `str` keys, `list` or `tuple`, `str`, `int`,
// `float`, `bool`, `None`) to the wire codec's tree and back, exactly: an `int` stays an
// integer of any size the tree holds (u64 and i64), never a float. What is not JSON the
// wire could carry raises `thm.DecodeError` at its JSON Pointer path. And raising thm's
// exceptions (`thm/_errors.py`) from C++: each is built from the case-file form of the core
// error (`json::error_value`: `variant`, the variant's fields, `message`), so its attributes
// and `to_json()` are the C++ error's, field for field.

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "convert.hpp"
#include "thm/json/json.hpp"
#include "thm/json/pointer.hpp"

namespace thm::python {

namespace py = pybind11;

/// `value` as JSON-shaped Python: objects as `dict` (keys in the tree's order), arrays as
/// `list`.
inline py::object json_to_py(const json::Value& value) {
  switch (value.type()) {
    case json::Value::value_t::null:
      return py::none();
    case json::Value::value_t::boolean:
      return py::bool_(value.get<bool>());
    case json::Value::value_t::number_integer:
      return py::int_(value.get<std::int64_t>());
    case json::Value::value_t::number_unsigned:
      return py::int_(value.get<std::uint64_t>());
    case json::Value::value_t::number_float:
      return py::float_(value.get<double>());
    case json::Value::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      return py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
    }
    case json::Value::value_t::array: {
      py::list out;
      for (const auto& item : value) out.append(json_to_py(item));
      return out;
    }
    case json::Value::value_t::object: {
      py::dict out;
      for (const auto& [key, item] : value.items()) out[py::str(key)] = json_to_py(item);
      return out;
    }
    case json::Value::value_t::binary:
    case json::Value::value_t::discarded:
      break;
  }
  return py::none();
}

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

/// Raises `thm.DecodeError` at `path`: `value` is not JSON the wire could carry.
[[noreturn]] inline void refuse_json(const std::string& path, const std::string& why) {
  raise_decode_error(json::DecodeError{.path = path, .reason = "not JSON: " + why});
}

/// `value` as a JSON tree; `path` is its JSON Pointer (for errors), `depth` how deep it is.
inline json::Value json_from_py(py::handle value, const std::string& path = "",
                                std::size_t depth = 0) {
  const auto refuse = [&](const std::string& why) { refuse_json(path, why); };
  if (depth > json::kMaxDepth) refuse("nested deeper than " + std::to_string(json::kMaxDepth));
  PyObject* object = value.ptr();
  if (object == Py_None) return nullptr;
  if (PyBool_Check(object)) return object == Py_True;
  if (PyLong_Check(object)) {
    // As nlohmann's parser does: a non-negative integer is unsigned, a negative one signed.
    int overflow = 0;
    const long long small = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow == 0 && small >= 0) return static_cast<std::uint64_t>(small);
    if (overflow == 0) return static_cast<std::int64_t>(small);
    if (overflow > 0) {
      const unsigned long long large = PyLong_AsUnsignedLongLong(object);
      if (!PyErr_Occurred()) return static_cast<std::uint64_t>(large);
      PyErr_Clear();
    }
    refuse("the integer " + shown(value) + " is outside -2**63 .. 2**64-1");
  }
  if (PyFloat_Check(object)) {
    const double number = PyFloat_AsDouble(object);
    if (!std::isfinite(number)) refuse("a float that is not finite");
    return number;
  }
  if (PyUnicode_Check(object)) {
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(object, &size);
    if (utf8 == nullptr) {
      PyErr_Clear();
      refuse("a str with a lone surrogate");
    }
    return std::string(utf8, static_cast<std::size_t>(size));
  }
  if (PyDict_Check(object)) {
    json::Value out = json::Value::object();
    for (const auto& [key, item] : py::reinterpret_borrow<py::dict>(value)) {
      if (!PyUnicode_Check(key.ptr())) refuse("a dict key that is not a str");
      const std::string name = json_from_py(key, path, depth + 1).get<std::string>();
      out[name] = json_from_py(item, path + "/" + json::escape_pointer_token(name), depth + 1);
    }
    return out;
  }
  if (PyList_Check(object) || PyTuple_Check(object)) {
    json::Value out = json::Value::array();
    const py::sequence items = py::reinterpret_borrow<py::sequence>(value);
    for (std::size_t i = 0; i < items.size(); ++i) {
      out.push_back(json_from_py(items[i], path + "/" + std::to_string(i), depth + 1));
    }
    return out;
  }
  refuse_json(path, "a " + std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

}  // namespace thm::python
