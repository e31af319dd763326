"""The roster fold: each event's effect on who holds the seats, and malformed rosters."""

from __future__ import annotations

import pytest

from pbem.eventlog.roster import Holder, Roster, RosterError, apply, each, fold, from_json, initial

POLICY = {"at_deadline": "wait", "deadline_after_days": 7}


def created(names=("Ann", "Bo", "Cy"), bots=(2,), creator=0):
    roster = Roster(
        tuple(Holder(name, number in bots) for number, name in enumerate(names)),
        creator,
        POLICY,
    )
    return {
        "kind": "created",
        "seat": None,
        "payload": {"seats": len(names), "roster": roster.to_json()},
    }


def event(kind, seat=None, **payload):
    return {"kind": kind, "seat": seat, "payload": payload}


def test_the_created_event_carries_the_first_roster_and_round_trips():
    roster = fold([created()])
    assert roster.names == ["Ann", "Bo", "Cy"]
    assert roster.bots == [2]
    assert roster.bot_levels == {"2": "normal"}
    assert roster.creator == 0
    assert roster.policy == POLICY
    assert from_json(roster.to_json(), 3) == roster


def test_every_seat_change_folds_into_the_holder_of_its_seat():
    rows = [
        created(),
        event("seat_to_bot", 0, level="easy"),
        event("vacation", 1, until="x"),
        event("seat_reclaimed", 0),
        event("seat_left", 1),
        event("seat_taken", 1, new_name="Dee", returning=False),
        event("seat_offered", 0),
        event("seat_taken", 0, new_name="Ann", returning=True),
        event("policy_changed", None, policy={"at_deadline": "bot_turn"}),
        event("game_paused", None),
    ]
    states = [roster for _, roster in each(rows)]
    assert states[1].seats[0] == Holder("Ann", True, "easy")
    assert states[2] == states[1]
    assert states[3].seats[0] == Holder("Ann", False)
    assert states[4].seats[1] == Holder("Bo", True, "normal", open=True)
    assert states[5].seats[1] == Holder("Dee", False, "normal", False, person=1)
    assert states[6].seats[0].open
    assert states[7].seats[0] == Holder("Ann", False, "normal", False, person=0)
    assert states[8].policy == {"at_deadline": "bot_turn"}
    assert states[9].paused and not states[8].paused
    assert fold([*rows, event("game_resumed")]).paused is False


def test_a_log_from_before_rosters_has_none_until_its_roster_event():
    old = {"kind": "created", "seat": None, "payload": {"seats": 2}}
    assert initial(old["payload"]) is None
    assert apply(None, event("seat_to_bot", 0)) is None
    recorded = Roster((Holder("Ann"), Holder("Bo", True)), None, POLICY)
    assert (
        fold([old, event("seat_to_bot", 0), event("roster", roster=recorded.to_json())]) == recorded
    )


@pytest.mark.parametrize(
    "bad",
    [
        event("seat_to_bot", 3),
        event("seat_to_bot", True),
        event("seat_to_bot", 0, level="godlike"),
        event("seat_taken", 0, new_name=""),
        event("seat_taken", 0, new_name=["Ann"]),
        event("policy_changed", None, policy="wait"),
        event("roster", roster={"seats": [{"name": "Ann"}]}),
    ],
)
def test_malformed_roster_events_are_refused(bad):
    with pytest.raises(RosterError):
        fold([created(), bad])


@pytest.mark.parametrize(
    "roster",
    [
        None,
        {"seats": []},
        {"seats": [{"name": " "}, {"name": "B"}, {"name": "C"}]},
        {"seats": [{"name": "A", "bot": "yes"}, {"name": "B"}, {"name": "C"}]},
        {"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "creator": 3},
        {"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "creator": True},
        {"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}], "policy": []},
        {"seats": [{"name": "A" * 201}, {"name": "B"}, {"name": "C"}]},
    ],
)
def test_malformed_first_rosters_are_refused(roster):
    with pytest.raises(RosterError):
        initial({"seats": 3, "roster": roster})


def test_a_newcomer_at_the_creators_seat_does_not_become_the_creator():
    rows = [created(creator=0), event("seat_offered", 0)]
    assert fold([*rows, event("seat_taken", 0, new_name="Ann", returning=True)]).creator == 0
    assert fold([*rows, event("seat_taken", 0, new_name="Dee", returning=False)]).creator is None
    assert fold([*rows[:1], event("seat_taken", 1, new_name="Dee")]).creator == 0
