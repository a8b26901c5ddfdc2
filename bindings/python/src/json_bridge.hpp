#pragma once
// JSON-shaped Python values (`dict` with `str` keys, `list` or `tuple`, `str`, `int`,
// `float`, `bool`, `None`) to the wire codec's tree and back, exactly: an `int` stays an
// integer of any size the tree holds (u64 and i64), never a float. What is not JSON the
// wire could carry raises `thm.DecodeError` at its JSON Pointer path where the decoder reads
// it; under a key it ignores, it is ignored (`JsonReader`). And raising thm's
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
      // Bytes that are not UTF-8 as U+DC80..U+DCFF (PEP 383), as everywhere in the package,
      // so that `to_json()` and a pickle carry a field's exact bytes back.
      return py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
          text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape"));
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

/// Python values as a JSON tree for the wire decoder; a str's U+DC80..U+DCFF are the bytes
/// they stand for (PEP 383). What JSON cannot say (a datetime, a float that is not finite, an
/// integer beyond 64 bits, a str with any other lone surrogate, a dict
/// key that is not a str, nesting past the limit) becomes a placeholder the decoder refuses
/// wherever it reads it, and `explain` says why there: an unknown key is ignored whatever it
/// holds (SPEC §0.5), as in the Node.js package.
class JsonReader {
 public:
  /// `value` as a tree; `path` is its JSON Pointer.
  json::Value read(py::handle value, const std::string& path = "", std::size_t depth = 0) {
    if (depth > json::kMaxDepth) {
      return placeholder(path, "nested deeper than " + std::to_string(json::kMaxDepth));
    }
    PyObject* object = value.ptr();
    if (object == Py_None) return nullptr;
    if (PyBool_Check(object)) return object == Py_True;
    if (PyLong_Check(object)) return integer(value, path);
    if (PyFloat_Check(object)) {
      const double number = PyFloat_AsDouble(object);
      if (!std::isfinite(number)) return placeholder(path, "a float that is not finite");
      return number;
    }
    if (PyUnicode_Check(object)) {
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(object, &size);
      if (utf8 != nullptr) return std::string(utf8, static_cast<std::size_t>(size));
      PyErr_Clear();
      // U+DC80..U+DCFF carry the bytes 0x80..0xFF that are not UTF-8 (PEP 383); any other
      // lone surrogate is no text at all.
      const auto bytes = py::reinterpret_steal<py::object>(
          PyUnicode_AsEncodedString(object, "utf-8", "surrogateescape"));
      if (!bytes) {
        PyErr_Clear();
        return placeholder(path, "a str with a lone surrogate");
      }
      return std::string(PyBytes_AS_STRING(bytes.ptr()),
                         static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.ptr())));
    }
    if (PyDict_Check(object)) return dict(value, path, depth);
    if (PyList_Check(object) || PyTuple_Check(object)) {
      json::Value out = json::Value::array();
      const py::sequence items = py::reinterpret_borrow<py::sequence>(value);
      for (std::size_t i = 0; i < items.size(); ++i) {
        out.push_back(read(items[i], path + "/" + std::to_string(i), depth + 1));
      }
      return out;
    }
    return placeholder(path,
                       "a " + std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  }

  /// `error`, the decoder's, as the placeholder it refused says it: the one at its path, or
  /// inside what it refused there (an array too deep to read holds it), if there is one.
  [[nodiscard]] json::DecodeError explain(json::DecodeError error) const {
    for (const auto& [path, reason] : placeholders_) {
      if (path == error.path || path.starts_with(error.path + "/")) {
        return {.path = path, .reason = "not JSON: " + reason};
      }
    }
    return error;
  }

 private:
  json::Value placeholder(const std::string& path, std::string reason) {
    placeholders_.emplace_back(path, std::move(reason));
    return json::Value::binary({});
  }

  // As nlohmann's parser does: a non-negative integer is unsigned, a negative one signed.
  json::Value integer(py::handle value, const std::string& path) {
    int overflow = 0;
    const long long small = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow == 0 && small >= 0) return static_cast<std::uint64_t>(small);
    if (overflow == 0) return static_cast<std::int64_t>(small);
    if (overflow > 0) {
      const unsigned long long large = PyLong_AsUnsignedLongLong(value.ptr());
      if (!PyErr_Occurred()) return static_cast<std::uint64_t>(large);
      PyErr_Clear();
    }
    return placeholder(path, "the integer " + shown(value) + " is outside -2**63 .. 2**64-1");
  }

  json::Value dict(py::handle value, const std::string& path, std::size_t depth) {
    json::Value out = json::Value::object();
    for (const auto& [key, item] : py::reinterpret_borrow<py::dict>(value)) {
      if (!PyUnicode_Check(key.ptr())) return placeholder(path, "a dict key that is not a str");
      json::Value name = read(key, path, depth + 1);
      if (!name.is_string()) return name;  // a placeholder at `path`: the key cannot be said
      const auto& text = name.get_ref<const std::string&>();
      out[text] = read(item, path + "/" + json::escape_pointer_token(text), depth + 1);
    }
    return out;
  }

  std::vector<std::pair<std::string, std::string>> placeholders_;
};

}  // namespace thm::python
