"""The host queue conformance suite, run against a queue written in Python.

A host hands over a *harness*: an object (made by a factory the suite's adapter process
imports, ``"package.module:factory"``) that drives its queue and the writes the host makes
beside it. Its methods may be plain or ``async``; plain ones run in threads, so sessions
race for real. The package serves it over the adapter protocol (kit/protocol/PROTOCOL.md)
and runs the suite (the ``thm`` tool this wheel carries) against it:

    report = thm.conformance.run("myapp.queue_harness:make", short=True)
    assert report.passed, report.table

The harness (``ConformanceHarness``) and its sessions (``ConformanceSession``) are what the
suite's operations call, with the package's own values: a request is a
``thm.MentionTurnRequest`` (the one ``dispatch_mention`` hands a ``MentionTurnQueue``), a
policy a ``thm.MentionDispatchPolicy``, and ``enqueue_once`` answers ``thm.Enqueued()``,
``thm.Already()`` or ``thm.Refused(...)`` or raises ``thm.QueueError``, so the queue the
suite proves is the queue the host dispatches to. Text is bytes: ids and content may not be
UTF-8 (the suite sends NUL and invalid UTF-8), and ``s.encode("utf-8", "surrogateescape")``
is a field's exact bytes.

``thm.conformance.pytest`` makes one pytest test per check; ``python -m thm.conformance``
is ``thm conformance``.
"""

from __future__ import annotations

from thm.conformance._run import CheckResult, Report, check_ids, run
from thm.conformance._types import (Capabilities, Child, ConformanceHarness, ConformanceSession,
                                    Hook, Lease, LeaseError, Record, Reply, Text, Unsupported)

__all__ = ["Capabilities", "CheckResult", "Child", "ConformanceHarness", "ConformanceSession",
           "Hook", "Lease", "LeaseError", "Record", "Reply", "Report", "Text", "Unsupported",
           "check_ids", "run"]
