"""The case runner's matching holds the case files' rules, so a pass means something."""

from __future__ import annotations

from case_runner import matches, run_op


def test_numbers_and_booleans_are_not_interchangeable() -> None:
    assert not matches({"a": 1}, {"a": True})
    assert not matches({"a": True}, {"a": 1})
    assert not matches({"a": 1}, {"a": 1.0})
    assert matches({"a": [1, None, "x"]}, {"a": [1, None, "x"]})


def test_only_a_top_level_error_is_compared_by_the_keys_expected_names() -> None:
    assert matches({"error": {"variant": "Decode"}}, {"error": {"variant": "Decode", "path": "/x"}})
    assert not matches({"result": {"a": 1}}, {"result": {"a": 1, "b": 2}})
    assert not matches({"error": {"variant": "Decode"}}, {"error": {"variant": "Decode"}, "x": 1})


def test_a_missing_key_is_a_decode_error_at_its_path() -> None:
    assert run_op("is_general_chat", {}) == {"error": {
        "variant": "Decode", "path": "/input/chat", "reason": 'required key "chat" is missing'}}
