"""core.groups.waiting: a group with members, caught up on a topic whose producers stopped, waits; one behind,
without members, stale or unreadable does not; the stopped finding carries the waiting groups and their
numbers, or why the groups could not be read."""

from __future__ import annotations

from core.errors import ConnectError
from core.groups.lag import KAFKA, ZOOKEEPER, GroupLag, Member, PartitionLag, Stale
from core.groups.waiting import waiting_on, with_waiting
from core.traffic.cause import LoadFinding

MEMBER = Member("m-1", "c", "/10.0.0.1", 2)
STOPPED = LoadFinding(
    "stopped",
    "orders",
    "producers stopped: orders took 30.0 messages/s the window before and none since",
    {"messages_in_per_s_before": 30.0},
)
SKEW = LoadFinding("key_skew", "clicks-0", "key skew: ...", {"share": 1.0})


def _group(
    name: str,
    lags: dict[int, int],
    members: tuple[Member, ...] = (MEMBER,),
    stale: Stale | None = None,
    error: str | None = None,
) -> GroupLag:
    rows = tuple(PartitionLag("orders", p, 100 - lag, 100) for p, lag in lags.items())
    other = (PartitionLag("clicks", 0, 5, 50),)  # behind on another topic: says nothing about orders
    return GroupLag(name, KAFKA, "Stable", members, rows + other, error=error, stale=stale)


def test_a_caught_up_group_with_members_waits_and_the_others_do_not() -> None:
    groups = [
        _group("billing", {0: 0, 1: 0}),
        _group("behind", {0: 0, 1: 3}),
        _group("abandoned", {0: 0, 1: 0}, members=()),
        _group("stale", {0: 0}, stale=Stale(1, "the brokers did not answer")),
        _group("broken", {0: 0}, error="committed offsets not read: timed out"),
        GroupLag("old", ZOOKEEPER, "Active", (MEMBER,), (PartitionLag("orders", 0, 7, 7),)),
        GroupLag("never", KAFKA, "Stable", (MEMBER,), (PartitionLag("orders", 0, None, 7),)),  # nothing committed
    ]
    waiting = waiting_on(groups, "orders")
    assert [(w.group, w.members, w.partitions) for w in waiting] == [("billing", 1, 2), ("old", 1, 1)]
    assert waiting_on(groups, "clicks") == []  # billing is 45 behind on clicks


def test_the_stopped_finding_names_the_waiting_groups_with_their_numbers() -> None:
    asked: list[str] = []

    def groups_of(topic: str) -> list[GroupLag]:
        asked.append(topic)
        return [_group("billing", {0: 0, 1: 0}, members=(MEMBER, MEMBER)), _group("behind", {0: 2})]

    skew, stopped = with_waiting([SKEW, STOPPED], groups_of)
    assert skew == SKEW and asked == ["orders"]  # groups are read for a stopped topic only
    assert stopped.text == (
        "producers stopped: orders took 30.0 messages/s the window before and none since, while 1 consumer group "
        "waits on it, caught up (lag 0): billing (2 members, 2 partitions)"
    )
    assert stopped.to_json()["waiting"] == [{"group": "billing", "members": 2, "partitions": 2, "lag": 0}]
    assert stopped.numbers["messages_in_per_s_before"] == 30.0


def test_no_waiting_group_and_unreadable_groups_are_said() -> None:
    (none,) = with_waiting([STOPPED], lambda topic: [])
    assert none.text.endswith("; no consumer group waits on it") and none.numbers["waiting"] == []

    def fails(topic: str) -> list[GroupLag]:
        raise ConnectError("the brokers did not answer within 8 s")

    (unknown,) = with_waiting([STOPPED], fails)
    assert unknown.numbers["waiting"] is None
    assert unknown.numbers["waiting_unknown"] == "the brokers did not answer within 8 s"
    assert unknown.text.endswith("; its consumer groups: unknown (the brokers did not answer within 8 s)")
