#pragma once
// JSON-shaped Python values (`dict` with `str` keys, `list` or `tuple`, `str`, `int`,
// `float`, `bool`, `None`) to the wire codec and back, exactly: an `int` stays an integer of
// any size the wire holds (u64), never a float. What is not JSON the wire could carry raises
// `thm.DecodeError` at its JSON Pointer path where the decoder reads it; under a key it
// ignores, it is ignored (`PyReader`). And raising thm's
// exceptions (`thm/_errors.py`) from C++: each is built from the case-file form of the core
// error (`json::error_value`: `variant`, the variant's fields, `message`), so its attributes
// and `to_json()` are the C++ error's, field for field.

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// Python values read for the wire decoder where they are (`json::WireReader`), each value
/// it decodes once, with no tree in between; a str's U+DC80..U+DCFF are the bytes they stand
/// for (PEP 383). What JSON cannot say (a datetime, a float that is not finite, an integer
/// beyond 64 bits, a str with any other lone surrogate, nesting past the limit) is refused
/// wherever the decoder reads it, and said why there, or where it is inside the value the
/// decoder refused; an unknown key is ignored whatever it holds (SPEC §0.5), as in the
/// Node.js package, and so is a dict key that is not a str or not text, which no wire form
/// has. Needs the GIL.
class PyReader final : public json::WireReader {
 public:
  /// `value` as the decoder's root.
  [[nodiscard]] static Node root(py::handle value) { return {.value = value.ptr()}; }

  Look look(Node node) override {
    PyObject* object = py_of(node);
    if (object == Py_None) return {.kind = Kind::Null};
    if (PyBool_Check(object)) return {.kind = Kind::Boolean, .boolean = object == Py_True};
    if (PyLong_Check(object)) return integer(object);
    if (PyFloat_Check(object)) {
      if (!std::isfinite(PyFloat_AS_DOUBLE(object))) {
        return cannot_say("a float that is not finite");
      }
      return {.kind = Kind::Fraction};
    }
    if (PyUnicode_Check(object)) {
      std::string_view text;
      if (!utf8(object, text)) return cannot_say("a str with a lone surrogate");
      return {.kind = Kind::String, .text = text};
    }
    if (PyDict_Check(object)) return {.kind = Kind::Object};
    if (PyList_Check(object) || PyTuple_Check(object)) {
      return {.kind = Kind::Array, .size = static_cast<std::size_t>(Py_SIZE(object))};
    }
    return cannot_say("a " + type_name(object));
  }

  Node element(Node array, std::size_t index) override {
    PyObject* object = py_of(array);
    const auto i = static_cast<Py_ssize_t>(index);
    PyObject* item = PyList_Check(object) ? PyList_GetItem(object, i) : PyTuple_GetItem(object, i);
    if (item == nullptr) throw py::error_already_set();  // the list shrank as it was read
    return {.value = keep(item)};
  }

  std::optional<Node> member(Node object, std::string_view key) override {
    PyObject* item = PyDict_GetItemWithError(py_of(object), key_object(key));
    if (item == nullptr) {
      if (PyErr_Occurred() != nullptr) throw py::error_already_set();
      return std::nullopt;
    }
    return Node{.value = keep(item), .key = key};
  }

  std::optional<Unsaid> unsaid(Node refused, std::size_t depth) override {
    if (depth > json::kMaxDepth) {
      return Unsaid{.below = "", .reason = "nested deeper than " + std::to_string(json::kMaxDepth)};
    }
    const Look found = look(refused);
    if (found.kind == Kind::Unsaid) return Unsaid{.below = "", .reason = reason_};
    std::optional<Unsaid> inside;
    const auto below = [&](std::string segment, PyObject* item) {
      inside = unsaid({.value = keep(item)}, depth + 1);
      if (inside) inside->below = "/" + std::move(segment) + inside->below;
      return inside.has_value();
    };
    PyObject* object = py_of(refused);
    if (found.kind == Kind::Array) {
      for (Py_ssize_t i = 0; i < Py_SIZE(object); ++i) {
        PyObject* item =
            PyList_Check(object) ? PyList_GetItem(object, i) : PyTuple_GetItem(object, i);
        if (item == nullptr) throw py::error_already_set();
        if (below(std::to_string(i), item)) break;
      }
    } else if (found.kind == Kind::Object) {
      Py_ssize_t at = 0;
      PyObject* key = nullptr;
      PyObject* item = nullptr;
      while (PyDict_Next(object, &at, &key, &item)) {
        std::string_view name;
        if (!PyUnicode_Check(key) || !utf8(key, name)) continue;  // no key: ignored
        if (below(json::escape_pointer_token(name), item)) break;
      }
    }
    return inside;
  }

 private:
  static PyObject* py_of(Node node) {
    return static_cast<PyObject*>(const_cast<void*>(node.value));
  }

  Look cannot_say(std::string reason) {
    reason_ = std::move(reason);
    return {.kind = Kind::Unsaid};
  }

  // Holds `item` while the decoder reads: a key's __eq__ could drop it from its container.
  PyObject* keep(PyObject* item) {
    held_.push_back(py::reinterpret_borrow<py::object>(item));
    return item;
  }

  // `text` as UTF-8, its U+DC80..U+DCFF as the bytes they carry; false for any other lone
  // surrogate, which is no text at all.
  bool utf8(PyObject* text, std::string_view& out) {
    Py_ssize_t size = 0;
    const char* bytes = PyUnicode_AsUTF8AndSize(text, &size);
    if (bytes != nullptr) {
      out = {bytes, static_cast<std::size_t>(size)};
      return true;
    }
    PyErr_Clear();
    auto encoded = py::reinterpret_steal<py::object>(
        PyUnicode_AsEncodedString(text, "utf-8", "surrogateescape"));
    if (!encoded) {
      PyErr_Clear();
      return false;
    }
    out = {PyBytes_AS_STRING(encoded.ptr()),
           static_cast<std::size_t>(PyBytes_GET_SIZE(encoded.ptr()))};
    held_.push_back(std::move(encoded));
    return true;
  }

  // As nlohmann's parser has it: a non-negative integer is unsigned, a negative one signed.
  Look integer(PyObject* value) {
    int overflow = 0;
    const long long small = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0 && small >= 0) {
      return {.kind = Kind::Unsigned, .number = static_cast<std::uint64_t>(small)};
    }
    if (overflow == 0) return {.kind = Kind::Negative};
    if (overflow > 0) {
      const unsigned long long large = PyLong_AsUnsignedLongLong(value);
      if (PyErr_Occurred() == nullptr) return {.kind = Kind::Unsigned, .number = large};
      PyErr_Clear();
    }
    return cannot_say("the integer " + shown(value) + " is outside -2**63 .. 2**64-1");
  }

  // `key` as a str, made once for the process (a key of the wire forms: a few dozen, never
  // freed). The decoder names each key by the one string literal it has for it, so it is
  // found by that literal's address first.
  // The caches live as long as the process, as the interned strings they hold do: made on the
  // heap and never destroyed, so that nothing frees them at exit before the interpreter is
  // done with them (and a leak checker finds them still reachable).
  static PyObject* key_object(std::string_view key) {
    static auto& by_address = *new std::vector<std::pair<std::string_view, PyObject*>>();
    static auto& made = *new std::map<std::string, PyObject*, std::less<>>();
    for (const auto& [known, text] : by_address) {
      if (known.data() == key.data() && known.size() == key.size()) return text;
    }
    auto found = made.find(key);
    if (found == made.end()) {
      PyObject* text = PyUnicode_FromStringAndSize(key.data(), static_cast<Py_ssize_t>(key.size()));
      if (text == nullptr) throw py::error_already_set();
      PyUnicode_InternInPlace(&text);
      found = made.emplace(std::string(key), text).first;
    }
    if (by_address.size() < kKeysByAddress) by_address.emplace_back(key, found->second);
    return found->second;
  }
  // As many as the wire forms have keys, with room: a key past these is found by its text.
  static constexpr std::size_t kKeysByAddress = 128;

  std::vector<py::object> held_;
  std::string reason_;  // why the value `look` found last cannot be said in JSON
};

}  // namespace thm::python
