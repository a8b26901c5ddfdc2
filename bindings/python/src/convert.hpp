#pragma once
// Python values to the core's and back, strictly typed (adr/0013): a `str` for text (never
// `bytes`), an `int` that is not a `bool` and fits for integers, a sequence (not text) for a
// list, `None` for an absent optional, an instance of the bound class for a struct or an
// enum, one of the alternatives' classes for a variant. A value that does not fit raises
// `TypeError` (or `ValueError` for an int out of range) naming where it is, e.g.
// `RosterSnapshot.members[2]: expected RosterMember, got dict`.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace thm::python {

namespace py = pybind11;

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_variant : std::false_type {};
template <class... Ts>
struct is_variant<std::variant<Ts...>> : std::true_type {};

/// The Python class of the enum `E` (an `enum.StrEnum` whose values are the wire tokens)
/// and its members' tokens, filled in by `bind_enum`.
template <class E>
struct EnumClass {
  static inline PyObject* type = nullptr;  // a new reference, kept for the process's life
  static inline std::vector<std::pair<std::string, E>> tokens{};
};

/// The Python type name of a value, for messages: `dict`, `str`, `NoneType`.
inline std::string type_name(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__"));
}

/// What a field of type `T` accepts, for messages: `a str`, `an int from 0 to 4294967295`,
/// `a sequence of Mention`, `AgentTarget, PersonTarget, DeskTarget or EveryoneTarget`.
template <class T>
std::string expected();

template <class... Ts>
std::string alternatives(std::variant<Ts...>* /*tag*/) {
  std::string out;
  std::size_t left = sizeof...(Ts);
  ((out += expected<Ts>() + (--left == 0 ? "" : left == 1 ? " or " : ", ")), ...);
  return out;
}

template <class T>
std::string expected() {
  if constexpr (std::is_same_v<T, std::string>) {
    return "a str";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "a bool";
  } else if constexpr (std::is_integral_v<T>) {
    return "an int from 0 to " + std::to_string(std::numeric_limits<T>::max());
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(py::str(py::handle(EnumClass<T>::type).attr("__name__"))) +
           " (or its value)";
  } else if constexpr (is_optional<T>::value) {
    return expected<typename T::value_type>() + " or None";
  } else if constexpr (is_vector<T>::value) {
    return "a sequence of " + expected<typename T::value_type>();
  } else if constexpr (is_variant<T>::value) {
    return alternatives(static_cast<T*>(nullptr));
  } else {
    return py::str(py::type::of<T>().attr("__name__"));
  }
}

/// Raises `TypeError("<where>: expected <what T accepts>, got <value's type>")`.
template <class T>
[[noreturn]] void mismatch(py::handle value, const std::string& where) {
  throw py::type_error(where + ": expected " + expected<T>() + ", got " + type_name(value));
}

/// The `T` that `value`, an instance of `T`'s bound class, holds, by reference (a snapshot
/// is not copied). `TypeError` for anything else, and for an instance that holds none: made
/// by `T.__new__` alone, never by its constructor.
template <class T>
const T& held(py::handle value, const std::string& where) {
  if (!py::isinstance<T>(value)) mismatch<T>(value, where);
  auto* instance = reinterpret_cast<py::detail::instance*>(value.ptr());
  auto slot = instance->get_value_and_holder(py::detail::get_type_info(typeid(T)), false);
  if (!slot || !slot.holder_constructed()) {
    throw py::type_error(where + ": this " + expected<T>() +
                         " was never made: make values with keyword arguments, e.g. " +
                         expected<T>() + "(...)");
  }
  return *slot.template value_ptr<T>();
}

/// `value` as Python text for a message: its `repr`, or, for an int too long to print
/// (CPython refuses more than 4,300 digits), how many bits it has.
inline std::string shown(py::handle value) {
  if (PyLong_Check(value.ptr())) {
    const auto bits = value.attr("bit_length")().cast<std::size_t>();
    if (bits > 256) return "an int of " + std::to_string(bits) + " bits";
  }
  return py::repr(value);
}

/// `value` as a `T`; `where` names it in an error.
template <class T>
T from_py(py::handle value, const std::string& where);

template <class T, class... Ts>
bool load_alternative(py::handle value, std::variant<Ts...>& out, const std::string& where) {
  if (!py::isinstance<T>(value)) return false;
  out = held<T>(value, where);
  return true;
}

template <class... Ts>
std::variant<Ts...> variant_from_py(py::handle value, const std::string& where) {
  std::variant<Ts...> out;
  if (!(load_alternative<Ts>(value, out, where) || ...)) {
    mismatch<std::variant<Ts...>>(value, where);
  }
  return out;
}

template <class T>
T variant_from_py(py::handle value, const std::string& where, T* /*tag*/) {
  return [&]<class... Ts>(std::variant<Ts...>*) {
    return variant_from_py<Ts...>(value, where);
  }(static_cast<T*>(nullptr));
}

template <class T>
T from_py(py::handle value, const std::string& where) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!PyUnicode_Check(value.ptr())) mismatch<T>(value, where);
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (utf8 != nullptr) return std::string(utf8, static_cast<std::size_t>(size));
    // A lone surrogate. U+DC80..U+DCFF carry the bytes 0x80..0xFF that are not UTF-8, as
    // os.fsdecode makes them (PEP 383); any other is not text.
    PyErr_Clear();
    const auto bytes = py::reinterpret_steal<py::object>(
        PyUnicode_AsEncodedString(value.ptr(), "utf-8", "surrogateescape"));
    if (!bytes) {
      PyErr_Clear();
      throw py::value_error(where +
                            ": not valid Unicode text (a lone surrogate; only U+DC80..U+DCFF "
                            "carry bytes, as surrogateescape makes them)");
    }
    return std::string(PyBytes_AS_STRING(bytes.ptr()),
                       static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.ptr())));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!PyBool_Check(value.ptr())) mismatch<T>(value, where);
    return value.ptr() == Py_True;
  } else if constexpr (std::is_integral_v<T>) {
    static_assert(std::is_unsigned_v<T>, "the core's integers are unsigned");
    if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) mismatch<T>(value, where);
    const unsigned long long wide = PyLong_AsUnsignedLongLong(value.ptr());
    if ((wide == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr) ||
        wide > std::numeric_limits<T>::max()) {
      PyErr_Clear();
      throw py::value_error(where + ": expected " + expected<T>() + ", got " + shown(value));
    }
    return static_cast<T>(wide);
  } else if constexpr (std::is_enum_v<T>) {
    // A member of the enum's class is a str too: its value is the wire token.
    if (PyUnicode_Check(value.ptr())) {
      const std::string token = from_py<std::string>(value, where);
      for (const auto& [name, member] : EnumClass<T>::tokens) {
        if (name == token) return member;
      }
    }
    mismatch<T>(value, where);
  } else if constexpr (is_optional<T>::value) {
    if (value.is_none()) return std::nullopt;
    return from_py<typename T::value_type>(value, where);
  } else if constexpr (is_vector<T>::value) {
    if (!PySequence_Check(value.ptr()) || PyUnicode_Check(value.ptr()) ||
        PyBytes_Check(value.ptr()) || PyByteArray_Check(value.ptr())) {
      mismatch<T>(value, where);
    }
    const py::sequence items = py::reinterpret_borrow<py::sequence>(value);
    T out;  // not reserved: a sequence's length is its own word, and may be wrong
    for (std::size_t i = 0; i < items.size(); ++i) {
      out.push_back(
          from_py<typename T::value_type>(items[i], where + "[" + std::to_string(i) + "]"));
    }
    return out;
  } else if constexpr (is_variant<T>::value) {
    return variant_from_py(value, where, static_cast<T*>(nullptr));
  } else {
    return held<T>(value, where);
  }
}

/// `value` as Python: text as `str`, a vector as a `tuple`, an absent optional as `None`, a
/// variant as its alternative's class.
template <class T>
py::object to_py(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
        value.data(), static_cast<Py_ssize_t>(value.size()), "surrogateescape"));
  } else if constexpr (std::is_same_v<T, bool>) {
    return py::bool_(value);
  } else if constexpr (std::is_integral_v<T>) {
    return py::int_(value);
  } else if constexpr (std::is_enum_v<T>) {
    for (const auto& [name, member] : EnumClass<T>::tokens) {
      if (member == value) return py::handle(EnumClass<T>::type)(py::str(name));
    }
    return py::none();  // unreachable: every member is registered
  } else if constexpr (is_optional<T>::value) {
    if (!value) return py::none();
    return to_py(*value);
  } else if constexpr (is_vector<T>::value) {
    py::tuple out(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) out[i] = to_py(value[i]);
    return out;
  } else if constexpr (is_variant<T>::value) {
    return std::visit([](const auto& alternative) { return to_py(alternative); }, value);
  } else {
    return py::cast(value);
  }
}

/// A list of `values` as Python (an operation's answer is a `list`; a field is a `tuple`).
template <class T>
py::list list_to_py(const std::vector<T>& values) {
  py::list out;
  for (const T& value : values) out.append(to_py(value));
  return out;
}

}  // namespace thm::python
