"""The host's queue (turn_queue.py) against the conformance suite, one test per check."""

from thm.conformance.pytest import conformance_tests

test_turn_queue = conformance_tests("conformance_harness:Harness", short=True)
