// `dispatch_mention` with a queue written in Python (adr/0013): any object whose
// `enqueue_once(request)` answers `Enqueued()`, `Already()` or `Refused(reason=...)`.
// Nothing the queue does unwinds through the core (which is built without exceptions):
// every exception is caught at the port, kept, and raised again once the core returns.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "convert.hpp"
#include "json_bridge.hpp"
#include "large_roster.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"
#include "values.hpp"

namespace thm::python {
namespace {

using namespace pybind11::literals;

// The port over a Python object. The GIL is held throughout: the core calls the port from
// the thread that called `dispatch_mention`, once at most.
class PythonQueue final : public MentionTurnQueue {
 public:
  // `enqueue_once` is the queue's bound method, looked up once.
  explicit PythonQueue(py::object enqueue_once) : enqueue_once_(std::move(enqueue_once)) {}

  Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept override {
    try {
      const py::object answer = enqueue_once_(request);
      if (py::hasattr(answer, "__await__")) return awaitable(answer);
      if (py::isinstance<Enqueued>(answer)) return held<Enqueued>(answer, "enqueue_once");
      if (py::isinstance<Already>(answer)) return held<Already>(answer, "enqueue_once");
      if (py::isinstance<Refused>(answer)) return held<Refused>(answer, "enqueue_once");
      return unexpected{QueueError{QueueErrorKind::Internal,
                                   "enqueue_once returned " + std::string(py::repr(answer)) +
                                       ", not Enqueued(), Already() or Refused(reason=...)"}};
    } catch (py::error_already_set& raised) {
      return unexpected{keep(raised)};
    } catch (const std::exception& e) {  // a C++ failure on the way (e.g. no memory)
      return unexpected{QueueError{QueueErrorKind::Internal, e.what()}};
    } catch (...) {
      return unexpected{QueueError{QueueErrorKind::Internal, "an unknown C++ exception"}};
    }
  }

  // An async queue's answer: closed unawaited (no "never awaited" warning follows), and an
  // error that names the call an async queue needs.
  static unexpected<QueueError> awaitable(const py::object& answer) {
    if (py::hasattr(answer, "close")) answer.attr("close")();
    return unexpected{
        QueueError{QueueErrorKind::Internal, "enqueue_once returned " + type_name(answer) +
                                                 ", an awaitable: an async queue is served by "
                                                 "thm.dispatch_mention_async"}};
  }

  // What the queue raised, if it raised.
  std::optional<py::error_already_set>& raised() { return raised_; }

 private:
  // Keeps what the queue raised, and the host failure it stands for: a thm.QueueError's own
  // kind and message; for any other exception, `Internal` with its type and text.
  QueueError keep(py::error_already_set& raised) noexcept {
    try {
      raised_ = std::move(raised);
      const py::object error = raised_->value();
      const py::object thm_error = py::module_::import("thm._errors").attr("QueueError");
      if (py::isinstance(error, thm_error)) {
        const std::string token = py::str(error.attr("kind"));
        const std::string message = py::str(error.attr("message"));
        if (const auto kind = queue_error_kind_from_name(token)) return {*kind, message};
        return {QueueErrorKind::Internal, "unknown kind " + token + ": " + message};
      }
      return {QueueErrorKind::Internal, type_name(error) + ": " + std::string(py::str(error))};
    } catch (...) {
      return {QueueErrorKind::Internal, "the queue raised an exception that cannot be shown"};
    }
  }

  py::object enqueue_once_;
  std::optional<py::error_already_set> raised_;
};

// How deep `dispatch_mention` may nest in one thread (a queue that dispatches from inside
// `enqueue_once`): far past any real host, and far short of the C stack, which a raised
// recursion limit would otherwise let Python exhaust.
constexpr int kMaxNestedDispatches = 32;
thread_local int nested_dispatches = 0;

// The queue's `enqueue_once`, or `TypeError` if it has none; any other error getting it
// (a failing `__getattr__`) is raised as it is.
py::object enqueue_method(py::handle queue) {
  PyObject* method = PyObject_GetAttrString(queue.ptr(), "enqueue_once");
  if (method != nullptr) return py::reinterpret_steal<py::object>(method);
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
  PyErr_Clear();
  throw py::type_error(
      "dispatch_mention(queue): expected an object with enqueue_once(request), "
      "got " +
      type_name(queue));
}

// `dispatch_mention` on the snapshots `Snapshot` (a RosterSnapshot, or a prepared Team)
// given as `roster` under the keyword `keyword`.
template <class Snapshot>
py::object dispatch(py::handle queue, py::handle policy, py::handle input, py::handle roster,
                    const char* keyword) {
  if (nested_dispatches >= kMaxNestedDispatches) {
    PyErr_SetString(PyExc_RecursionError,
                    ("dispatch_mention nested more than " + std::to_string(kMaxNestedDispatches) +
                     " deep: a queue is dispatching from inside enqueue_once")
                        .c_str());
    throw py::error_already_set();
  }
  struct Nested {
    Nested() { ++nested_dispatches; }
    ~Nested() { --nested_dispatches; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
  } const nested;
  py::object enqueue_once = enqueue_method(queue);
  const auto rules = from_py<MentionDispatchPolicy>(policy, "dispatch_mention(policy)");
  const auto reply = from_py<MentionDispatchInput>(input, "dispatch_mention(input)");
  const auto& snapshot = held<Snapshot>(roster, std::string("dispatch_mention(") + keyword + ")");
  PythonQueue port(std::move(enqueue_once));
  auto outcome = [&] {
    if constexpr (std::is_same_v<Snapshot, Team>) {
      return dispatch_mention(port, rules, reply, snapshot);
    } else {
      warn_if_large(snapshot, "dispatch_mention");
      return dispatch_mention(port, rules, reply, Roster(snapshot));
    }
  }();
  if (outcome) return to_py(*outcome);
  if (const auto* core = std::get_if<CoreFailure>(&outcome.error())) {
    raise_error("RosterError", json::error_value(core->core));
  }
  const QueueError& failure = std::get<EnqueueFailure>(outcome.error()).error;
  const py::object thm_error = py::module_::import("thm._errors").attr("QueueError");
  auto& raised = port.raised();
  // The queue's own thm.QueueError, or a BaseException that is not an Exception
  // (KeyboardInterrupt, SystemExit): raised again as it was.
  if (raised && (py::isinstance(raised->value(), thm_error) ||
                 !py::isinstance(raised->value(), py::handle(PyExc_Exception)))) {
    raised->restore();
    throw py::error_already_set();
  }
  const py::object error = thm_error(std::string(name(failure.kind)), failure.message);
  if (raised) error.attr("__cause__") = raised->value();
  PyErr_SetObject(thm_error.ptr(), error.ptr());
  throw py::error_already_set();
}

py::object op_dispatch_mention(py::handle queue, py::handle policy, py::handle input,
                               py::handle roster) {
  return dispatch<RosterSnapshot>(queue, policy, input, roster, "roster");
}

py::object op_dispatch_mention_on_team(py::handle queue, py::handle policy, py::handle input,
                                       py::handle team) {
  return dispatch<Team>(queue, policy, input, team, "team");
}

}  // namespace

void bind_dispatch_mention(py::module_& m) {
  m.def("dispatch_mention", &op_dispatch_mention, "queue"_a, py::kw_only(), "policy"_a, "input"_a,
        "roster"_a,
        "mention_dispatch, then, for DispatchOne only, queue.enqueue_once(request) exactly once "
        "(SPEC §4). Answers NotDispatched, Enqueued, Already or Refused; raises "
        "thm.RosterError for a malformed roster and thm.QueueError for a host failure (the "
        "queue's own exception as its __cause__, or itself if it was a thm.QueueError).");
  m.def("dispatch_mention", &op_dispatch_mention_on_team, "queue"_a, py::kw_only(), "policy"_a,
        "input"_a, "team"_a, "The same on a prepared thm.Team: no validation per call.");
}

}  // namespace thm::python
