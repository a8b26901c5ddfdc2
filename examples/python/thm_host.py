#!/usr/bin/env python3
"""A host in Python that asks the `thm` tool who answers and whether a reply dispatches.

Usage: thm_host.py [THM_BINARY] CASES_DIR   (or set THM=path/to/thm). Standard library only.
Every answer is asserted, so this file is a test as well as an example (examples/README.md).
"""
import glob
import json
import os
import re
import subprocess
import sys


class ThmError(Exception):
    """`thm` refused the request (exit 2): stdin not JSON, an unknown op, an unreadable file."""


def evaluate(thm, op, payload):
    """Run `thm eval OP` with `payload` on stdin; return the result object (a dict).

    A typed error or a refused input is a result too: {"error": {"variant": ...}}.
    """
    run = subprocess.run([thm, "eval", op], input=json.dumps(payload),
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise ThmError(f"thm eval {op} exited {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def check(thm, case_files):
    """Run `thm check`; return (passed, failed). Failures are printed by thm on stdout."""
    run = subprocess.run([thm, "check", *case_files], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise ThmError(f"thm check exited {run.returncode}: {(run.stdout + run.stderr).strip()}")
    if run.returncode == 1:
        print(run.stdout, end="")
    passed, failed = re.search(r"^(\d+) passed, (\d+) failed$", run.stdout, re.M).groups()
    return int(passed), int(failed)


def main(argv):
    if len(argv) not in (1, 2) or (len(argv) == 1 and "THM" not in os.environ):
        sys.exit("usage: thm_host.py [THM_BINARY] CASES_DIR  (or THM=... thm_host.py CASES_DIR)")
    thm, cases_dir = (argv if len(argv) == 2 else [os.environ["THM"], argv[0]])

    # The host's own state, in the wire forms of SPEC §6: three agents and one desk.
    roster = {"members": [{"id": "orch", "name": None}, {"id": "bob", "name": "Bob"},
                          {"id": "carol", "name": "Carol"}],
              "people": [{"id": "ada", "label": "Ada"}], "retired": [], "tombstoned": []}
    desks = {"declared": [{"id": "eng", "name": "Engineering", "description": None,
                           "members": ["bob", "carol"]}],
             "added": [], "member_additions": [], "orders": [], "retired": [], "tombstoned": []}

    # 1. Ada posts in the eng desk; which mentions does the message hold?
    body = "@Bob can you look at the flaky build?"
    mentions = evaluate(thm, "resolve_mentions", {
        "body": body, "supplied": None, "author": {"kind": "person", "id": "ada"},
        "roster": roster, "desks": desks})["mentions"]
    assert [m["target"] for m in mentions] == [{"kind": "agent", "id": "bob"}], mentions

    # 2. Who answers it? An explicit mention outranks the desk's default.
    plan = evaluate(thm, "responder_plan", {
        "request": {"message": body, "chat": "eng", "mentions": mentions,
                    "orchestrator_id": "orch", "selection_policy": "allowed"},
        "roster": roster, "desks": desks, "candidate_details": []})["plan"]
    assert plan["kind"] == "decided", plan
    assert plan["decision"]["responder_id"] == "bob", plan
    assert plan["decision"]["rung"] == "explicit_mention", plan
    print(f"run agent {plan['decision']['responder_id']} ({plan['decision']['rung']})")

    # 3. Bob's reply mentions Carol: may it start one more turn?
    policy = {"enabled": True, "max_hops": 1}
    conversation = {"desk_id": "eng", "thread_root": 7}
    reply = {"key": {"trigger_sequence": 41}, "conversation": conversation, "author_id": "bob",
             "content": "@carol the test needs a second pair of eyes",
             "mentions": [{"target": {"kind": "agent", "id": "carol"}, "text": "@carol",
                           "offset": 0}], "hop": 0}
    decision = evaluate(thm, "mention_dispatch",
                        {"policy": policy, "input": reply, "roster": roster})["decision"]
    assert decision["kind"] == "one", decision
    turn = decision["request"]
    assert (turn["target_id"], turn["child_hop"]) == ("carol", 1), turn
    print(f"enqueue a turn for {turn['target_id']} at hop {turn['child_hop']}")

    # 4. Carol answers at hop 1 and mentions Bob back: the hop limit stops the ping-pong.
    answer = dict(reply, key={"trigger_sequence": 42}, author_id="carol", hop=turn["child_hop"],
                  content="@bob found it", mentions=[{"target": {"kind": "agent", "id": "bob"},
                                                      "text": "@bob", "offset": 0}])
    decision = evaluate(thm, "mention_dispatch",
                        {"policy": policy, "input": answer, "roster": roster})["decision"]
    assert decision == {"kind": "none", "reason": "hop_limit_reached"}, decision
    print(f"no new turn: {decision['reason']}")

    # 5. A refused input is a result, not a crash: the path points at the bad value.
    refused = evaluate(thm, "mention_dispatch",
                       {"policy": policy, "input": dict(reply, hop=-1), "roster": roster})
    assert refused["error"]["variant"] == "Decode", refused
    assert refused["error"]["path"] == "/input/input/hop", refused
    try:  # while an unknown op (or stdin that is not JSON) is exit 2, with the reason on stderr
        evaluate(thm, "mention_dispatch_v9", {})
        raise AssertionError("an unknown op must be refused")
    except ThmError as refusal:
        assert "unknown op" in str(refusal), refusal

    # 6. The shared case files, with thm as the reference runner.
    passed, failed = check(thm, sorted(glob.glob(os.path.join(cases_dir, "*.json"))))
    assert failed == 0 and passed > 0, (passed, failed)
    print(f"cases: {passed} passed, {failed} failed")


if __name__ == "__main__":
    main(sys.argv[1:])
