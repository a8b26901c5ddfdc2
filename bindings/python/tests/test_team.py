"""thm.Team, the prepared form of a chat's snapshots (adr/0016): made once per roster
change, it answers every decision as the snapshots do, and refuses what they refuse."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from typing import Any

import pytest

import thm

ADA = thm.RosterMember(id="ada", name="Ada")
BOB = thm.RosterMember(id="bob", name=None)
ROSTER = thm.RosterSnapshot(members=[ADA, BOB], people=[], retired=[], tombstoned=[])
DESKS = thm.DeskSnapshot(
    declared=[thm.Desk(id="eng", name="Engineering", description=None, members=["ada", "bob"],
                       responder_mode=thm.ResponderMode.AUTO)],
    added=[], member_additions=[], orders=[], retired=[], tombstoned=[])
TEAM = thm.Team.prepare(roster=ROSTER, desks=DESKS)
POLICY = thm.MentionDispatchPolicy(enabled=True, max_hops=3)
BODY = "@ada and @#eng, then @bob"


def untyped(value: object) -> Any:
    return value


def test_prepare_raises_what_the_decisions_would() -> None:
    twice = thm.RosterSnapshot(members=[BOB, BOB], people=[], retired=[], tombstoned=[])
    with pytest.raises(thm.RosterError) as roster_error:
        thm.Team.prepare(roster=twice, desks=DESKS)
    assert roster_error.value.to_json()["variant"] == "DuplicateRosterMemberId"
    reserved = thm.DeskSnapshot(
        declared=[thm.Desk(id="main", name="x", description=None, members=[])], added=[],
        member_additions=[], orders=[], retired=[], tombstoned=[])
    with pytest.raises(thm.DeskError) as desk_error:
        thm.Team.prepare(roster=ROSTER, desks=reserved)
    assert desk_error.value.to_json()["variant"] == "ReservedDeskIdentity"


def test_a_team_is_made_only_by_prepare_and_keeps_its_snapshots() -> None:
    with pytest.raises(TypeError):
        untyped(thm.Team)()
    assert TEAM.roster == ROSTER and TEAM.desks == DESKS
    assert TEAM.is_active("ada") and not TEAM.is_active("Ada")
    with pytest.raises(AttributeError):
        untyped(TEAM).roster = ROSTER
    assert "2 members" in repr(TEAM)


def test_every_decision_answers_on_a_team_as_on_the_snapshots() -> None:
    author = thm.PersonAuthor(id="p1")
    on_snapshots = thm.resolve_mentions(BODY, supplied=None, author=author, roster=ROSTER,
                                        desks=DESKS)
    assert thm.resolve_mentions(BODY, supplied=None, author=author, team=TEAM) == on_snapshots
    assert len(on_snapshots) == 3
    assert thm.direct_responder(on_snapshots, team=TEAM) == "ada"
    assert thm.mentioned_members(on_snapshots, addressed_desk="eng", responder="ada",
                                 team=TEAM) == ["bob"]
    request = thm.ResponderRequest(message="hi", chat="eng", mentions=[], orchestrator_id="ada",
                                   selection_policy=thm.SelectionPolicy.ALLOWED)
    assert thm.responder_plan(request, team=TEAM, candidate_details=[]) == thm.responder_plan(
        request, roster=ROSTER, desks=DESKS, candidate_details=[])
    reply = thm.MentionDispatchInput(
        key=thm.DispatchKey(trigger_sequence=1),
        conversation=thm.DispatchConversation(desk_id="eng", thread_root=None),
        author_id="ada", content=BODY, mentions=on_snapshots, hop=0)
    decision = thm.mention_dispatch(policy=POLICY, input=reply, team=TEAM)
    assert decision == thm.mention_dispatch(policy=POLICY, input=reply, roster=ROSTER)
    assert isinstance(decision, thm.NoDispatch)  # the first agent mention is the author

    class Queue:
        calls = 0

        def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
            Queue.calls += 1
            return thm.Enqueued()

    to_bob = thm.MentionDispatchInput(
        key=thm.DispatchKey(trigger_sequence=2),
        conversation=thm.DispatchConversation(desk_id="eng", thread_root=None),
        author_id="ada", content="@bob", mentions=[
            thm.Mention(target=thm.AgentTarget(id="bob"), text="@bob", offset=0)], hop=0)
    assert thm.dispatch_mention(Queue(), policy=POLICY, input=to_bob, team=TEAM) == thm.Enqueued()
    assert Queue.calls == 1
    conversation = thm.Conversation(desk_id="eng", desk_name="Engineering", thread_root=None)
    assert thm.TeamBriefing.from_team("ada", conversation=conversation, team=TEAM) == \
        thm.TeamBriefing.from_snapshots("ada", conversation=conversation, desks=DESKS,
                                        roster=ROSTER)


def test_a_team_where_one_is_expected_and_nothing_else() -> None:
    with pytest.raises(TypeError, match=r"resolve_mentions\(team\): expected Team"):
        thm.resolve_mentions("@ada", supplied=None, author=thm.OtherAuthor(),
                             team=untyped(ROSTER))
    with pytest.raises(TypeError):
        thm.mention_dispatch(policy=POLICY, input=untyped(None), team=TEAM)
    with pytest.raises(thm.DeskError):
        thm.TeamBriefing.from_team("ada", conversation=thm.Conversation(
            desk_id="nowhere", desk_name="x", thread_root=None), team=TEAM)


# A script that calls resolve_mentions on views three times with a roster past the threshold,
# once with a small one, and once on the large one prepared, then says what it was warned.
LARGE_ROSTER_SCRIPT = """
import warnings, thm
desks = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[], retired=[],
                         tombstoned=[])
large = thm.RosterSnapshot(members=[thm.RosterMember(id=f"a{i}", name=None) for i in range(1001)])
small = thm.RosterSnapshot(members=[thm.RosterMember(id="a", name=None)])
def call(**snapshots):
    thm.resolve_mentions("hi @a1", supplied=None, author=thm.OtherAuthor(), **snapshots)
call(roster=small, desks=desks)
raised = 0
for _ in range(3):
    try:
        call(roster=large, desks=desks)
    except thm.LargeRosterWarning:
        raised += 1
call(team=thm.Team.prepare(roster=large, desks=desks))
print("raised", raised)
"""


def run_large_roster_script(*options: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, *options, "-c", LARGE_ROSTER_SCRIPT], check=True,
                          capture_output=True, text=True, env=environment)


def test_a_large_roster_on_views_warns_once_per_process() -> None:
    shown = run_large_roster_script()
    assert shown.stdout == "raised 0\n"
    assert shown.stderr.count("LargeRosterWarning") == 1, shown.stderr
    assert "resolve_mentions: a roster of 1001 agents" in shown.stderr
    assert "thm.Team.prepare" in shown.stderr
    # Every call raises it while it is an error; silenced, it says nothing.
    raised = run_large_roster_script("-W", "error::thm.LargeRosterWarning")
    assert raised.stdout == "raised 3\n"
    silenced = run_large_roster_script("-W", "ignore::thm.LargeRosterWarning")
    assert (silenced.stdout, silenced.stderr) == ("raised 0\n", "")


def test_a_roster_at_the_threshold_or_prepared_does_not_warn() -> None:
    desks = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[], retired=[],
                             tombstoned=[])
    members = [thm.RosterMember(id=f"a{i}", name=None) for i in range(1000)]
    at_threshold = thm.RosterSnapshot(members=members)
    with warnings.catch_warnings():
        warnings.simplefilter("error", thm.LargeRosterWarning)
        thm.mention_dispatch(policy=POLICY, input=thm.MentionDispatchInput(
            key=thm.DispatchKey(trigger_sequence=1),
            conversation=thm.DispatchConversation(desk_id="d", thread_root=None),
            author_id="a1", content="@a2", mentions=[], hop=0), roster=at_threshold)
        larger = thm.RosterSnapshot(members=[*members, thm.RosterMember(id="z", name=None)])
        thm.direct_responder([], team=thm.Team.prepare(roster=larger, desks=desks))


def test_a_briefing_on_a_large_roster_left_unprepared_warns_too() -> None:
    script = """
import thm
desks = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[], retired=[],
                         tombstoned=[])
large = thm.RosterSnapshot(members=[thm.RosterMember(id=f"a{i}", name=None) for i in range(1001)])
conversation = thm.Conversation(desk_id="General", desk_name="General", thread_root=None)
try:
    thm.TeamBriefing.from_snapshots("a1", conversation=conversation, desks=desks, roster=large)
    print("not raised")
except thm.LargeRosterWarning as warning:
    print("raised", warning)
"""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-W", "error::thm.LargeRosterWarning", "-c", script],
                          check=True, capture_output=True, text=True, env=environment)
    assert done.stdout.startswith("raised TeamBriefing.from_snapshots: a roster of 1001"), done
