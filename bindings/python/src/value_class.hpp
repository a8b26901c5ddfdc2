#pragma once
// `ValueClass<T>`: one core struct as an immutable Python value class (adr/0013):
// keyword-only construction, every key the wire form requires a required argument
// (`Mention(target=AgentTarget(id="bob"), text="@bob", offset=0)`; only `quiet`,
// `responder_mode` and `brevity` have defaults, as on the wire), read-only fields,
// `replace(**changes)`, `__eq__`, `__repr__`, `__match_args__`, `to_json()` and
// `from_json(value)` (SPEC §6). A value that its wire form could not carry (a probability
// over 1,000,000) is refused when it is made, so `to_json()` is always readable back.

#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "convert.hpp"
#include "json_bridge.hpp"
#include "signatures.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"

namespace thm::python {

/// `value`'s wire form as JSON-shaped Python, where `Wire` is the wire type that holds it
/// (the variant, for an alternative).
template <class Wire, class T>
py::object wire_to_py(const T& value) {
  return json_to_py(json::to_value(Wire(value)));
}

/// The `Wire` value that JSON-shaped `value` decodes to, error paths under `root`; raises
/// `thm.DecodeError`.
template <class Wire>
Wire wire_from_py(py::handle value, const std::string& root = "") {
  PyReader reader;
  auto decoded = json::from_reader<Wire>(reader, PyReader::root(value), root);
  if (!decoded) raise_decode_error(decoded.error());
  return *std::move(decoded);
}

/// Whether a field must be given when a value is made.
enum class Given : std::uint8_t { Required, Optional };

template <class T, class Wire = T>
class ValueClass {
 public:
  /// Binds `T` as `module.<name>`.
  ValueClass(py::module_& module, const char* name, const char* doc)
      : class_(module, name, doc, py::is_final()) {
    class_.def(py::init([](const py::kwargs& fields) { return make(T{}, fields, true); }),
               "Keyword arguments only, one per field; every field the wire form requires "
               "must be given.");
    set_text_signature(class_.attr("__init__"), "(self, /)");
    class_.def(
        "replace",
        [](py::handle self, const py::kwargs& changes) {
          return make(held<T>(self, "replace"), changes, false);
        },
        "A copy with the fields named changed.");
    class_.def("__eq__", [](py::handle self, py::handle other) -> py::object {
      if (!py::isinstance<T>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      return py::bool_(held<T>(self, "==") == held<T>(other, "=="));
    });
    // Immutable, so hashable: equal values have one wire form, hence one hash.
    class_.def("__hash__", [](py::handle self) {
      return std::hash<std::string>{}(json::encode(Wire(held<T>(self, "hash"))));
    });
    class_.def("__repr__", [](py::handle self) {
      const T& value = held<T>(self, "repr");
      const py::object enumeration = py::module_::import("enum").attr("Enum");
      std::string out = class_name() + "(";
      const char* comma = "";
      for (const Field& field : fields()) {
        const py::object item = field.get(value);
        // An enum member as its constructor expression, `NoDispatchReason.DISABLED`.
        const std::string text =
            py::isinstance(item, enumeration)
                ? std::string(py::str(py::type::handle_of(item).attr("__name__"))) + "." +
                      std::string(py::str(item.attr("name")))
                : std::string(py::repr(item));
        out += comma + field.name + "=" + text;
        comma = ", ";
      }
      return out + ")";
    });
    class_.def(
        "to_json", [](py::handle self) { return wire_to_py<Wire>(held<T>(self, "to_json")); },
        "The wire form (SPEC §6) as JSON-shaped Python: dict, list, str, int, bool, None.");
    class_.def_static(
        "from_json", [](py::handle value, const std::string& root) { return decode(value, root); },
        py::arg("value"), py::arg("root") = "",
        "Decodes the wire form; raises thm.DecodeError whose `path` is a JSON Pointer under "
        "`root`.");
    // Immutable, so a copy is the value itself, and a pickle is its wire form.
    class_.def("__copy__",
               [](py::handle self) { return py::reinterpret_borrow<py::object>(self); });
    class_.def("__deepcopy__", [](py::handle self, py::handle /*memo*/) {
      return py::reinterpret_borrow<py::object>(self);
    });
    class_.def("__reduce__", [](py::handle self) {
      return py::make_tuple(py::module_::import("thm._values").attr("rebuild"),
                            py::make_tuple(wire_name(), wire_to_py<Wire>(held<T>(self, "pickle"))));
    });
    class_.attr("__match_args__") = py::tuple();
    class_.attr("__module__") = "thm";
  }

  /// Adds the read-only field `member` as `name`; `given` says whether making a value needs
  /// it (`Optional`: it may be left out, and keeps the C++ default, as a designated
  /// initializer would: a snapshot's lists empty, a request's policy `allowed`). The wire
  /// form's own rule (SPEC §6) is the decoder's, and does not change.
  template <class F>
  ValueClass& field(const char* name, F T::*member, const char* doc,
                    Given given = Given::Required) {
    fields().push_back({name, given, [member](const T& value) { return to_py(value.*member); },
                        [member, name](T& self, py::handle value) {
                          self.*member = from_py<F>(value, class_name() + "." + name);
                        }});
    class_.def_property_readonly(
        name, [member, name](py::handle self) { return to_py(held<T>(self, name).*member); }, doc);
    py::list names;
    std::string parameters = "(self, /, *";
    for (const Field& field : fields()) {
      names.append(py::str(field.name));
      parameters += ", " + field.name + (field.given == Given::Optional ? "=..." : "");
    }
    class_.attr("__match_args__") = py::tuple(names);
    set_text_signature(class_.attr("__init__"), parameters + ")");
    return *this;
  }

  /// Makes `str(value)` the text `text(value)` gives, instead of the `repr`.
  template <class Text>
  ValueClass& str(Text text, const char* doc) {
    class_.def(
        "__str__", [text](py::handle self) { return text(held<T>(self, "str")); }, doc);
    return *this;
  }

  /// `value` decoded as the wire form of `T`.
  static T decode(py::handle value, const std::string& root) {
    Wire decoded = wire_from_py<Wire>(value, root);
    if constexpr (std::is_same_v<Wire, T>) {
      return decoded;
    } else {
      if (T* alternative = std::get_if<T>(&decoded)) return std::move(*alternative);
      const std::string got = py::str(py::type::handle_of(to_py(decoded)).attr("__name__"));
      raise_decode_error(
          json::DecodeError{.path = root, .reason = "expected " + class_name() + ", got " + got});
    }
  }

 private:
  struct Field {
    std::string name;
    Given given;
    std::function<py::object(const T&)> get;
    std::function<void(T&, py::handle)> set;
  };
  static std::vector<Field>& fields() {
    static std::vector<Field> registered;
    return registered;
  }
  static std::string class_name() { return py::str(py::type::of<T>().attr("__name__")); }
  // The name `thm.from_json` knows the wire form by: the class's own, or its variant's.
  static std::string wire_name() {
    if constexpr (std::is_same_v<Wire, T>) {
      return class_name();
    } else if constexpr (std::is_same_v<Wire, MentionTarget>) {
      return "MentionTarget";
    } else if constexpr (std::is_same_v<Wire, MentionAuthor>) {
      return "MentionAuthor";
    } else if constexpr (std::is_same_v<Wire, ResponderPlan>) {
      return "ResponderPlan";
    } else if constexpr (std::is_same_v<Wire, SelectorResult>) {
      return "SelectorResult";
    } else if constexpr (std::is_same_v<Wire, MentionDispatchDecision>) {
      return "MentionDispatchDecision";
    } else if constexpr (std::is_same_v<Wire, EnqueueOutcome>) {
      return "EnqueueOutcome";
    } else {
      static_assert(std::is_same_v<Wire, MentionDispatchOutcome>, "a variant with no name here");
      return "MentionDispatchOutcome";
    }
  }
  // `value` with `changes` applied; `fresh`: every required field must be among them. The
  // result is refused if its wire form could not be read back.
  static T make(T value, const py::kwargs& changes, bool fresh) {
    std::vector<std::string> missing;
    if (fresh) {
      for (const Field& field : fields()) {
        if (field.given == Given::Required && !changes.contains(field.name)) {
          missing.push_back("'" + field.name + "'");
        }
      }
    }
    if (!missing.empty()) {
      std::string names;
      for (std::size_t i = 0; i < missing.size(); ++i) {
        names += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
      }
      throw py::type_error(class_name() + "() missing required keyword argument" +
                           (missing.size() == 1 ? ": " : "s: ") + names);
    }
    for (const auto& [key, item] : changes) {
      const std::string name = py::str(key);
      const auto found = std::find_if(fields().begin(), fields().end(),
                                      [&](const Field& field) { return field.name == name; });
      if (found == fields().end()) {
        throw py::type_error(class_name() + "() got an unexpected keyword argument '" + name + "'");
      }
      found->set(value, item);
    }
    if (auto readable = json::from_value<Wire>(json::to_value(Wire(value))); !readable) {
      throw py::value_error(
          class_name() + ": " + readable.error().reason + " (at " +
          (readable.error().path.empty() ? "the value itself" : readable.error().path) +
          " of its wire form)");
    }
    return value;
  }

  py::class_<T> class_;
};

/// `text` in capitals: `hop_limit_reached` -> `HOP_LIMIT_REACHED`.
inline std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return out;
}

/// Binds the enum `E` as `module.<name>`: an `enum.StrEnum` whose members are the wire
/// tokens in capitals and whose values are the tokens
/// (`NoDispatchReason.HOP_LIMIT_REACHED == "hop_limit_reached"`), so a member is its own
/// wire form.
template <class E, std::size_t N>
void bind_enum(py::module_& module, const char* name, const std::array<E, N>& all,
               const char* doc) {
  py::list members;
  for (const E value : all) {
    const std::string token(thm::name(value));
    members.append(py::make_tuple(upper(token), token));
    EnumClass<E>::tokens.emplace_back(token, value);
  }
  py::object type =
      py::module_::import("enum").attr("StrEnum")(name, members, py::arg("module") = "thm");
  type.attr("__doc__") = doc;
  module.attr(name) = type;
  EnumClass<E>::type = type.release().ptr();
}

}  // namespace thm::python
