"""core.groups.waiting: a group with members, caught up on a topic whose producers stopped, waits; one behind,
without members, stale or unreadable does not; the stopped finding carries the waiting groups and their
numbers, or why the groups could not be read, and when they were: read when the topic stops, then every few
ticks."""

from __future__ import annotations

from core.errors import ConnectError
from core.groups.lag import KAFKA, ZOOKEEPER, GroupLag, Member, PartitionLag, Stale
from core.groups.waiting import WaitingReads, waiting_on
from core.human_time import clock_text
from core.traffic.cause import LoadFinding

MEMBER = Member("m-1", "c", "/10.0.0.1", 2)
STOPPED = LoadFinding(
    "stopped",
    "orders",
    "producers stopped: orders took 30.0 messages/s the window before and none since",
    {"messages_in_per_s_before": 30.0},
)
AT = 1_700_000_000_000
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

    skew, stopped = WaitingReads().complete([SKEW, STOPPED], groups_of, AT)
    assert skew == SKEW and asked == ["orders"]  # groups are read for a stopped topic only
    assert stopped.text == (
        "producers stopped: orders took 30.0 messages/s the window before and none since, while 1 consumer group "
        f"waits on it, caught up (lag 0): billing (2 members, 2 partitions) (groups read {clock_text(AT)})"
    )
    assert stopped.numbers["waiting_read_at_ms"] == AT
    assert stopped.to_json()["waiting"] == [{"group": "billing", "members": 2, "partitions": 2, "lag": 0}]
    assert stopped.numbers["messages_in_per_s_before"] == 30.0


def test_no_waiting_group_and_unreadable_groups_are_said() -> None:
    (none,) = WaitingReads().complete([STOPPED], lambda topic: [], AT)
    assert none.text.endswith(f"; no consumer group waits on it (groups read {clock_text(AT)})")
    assert none.numbers["waiting"] == []

    def fails(topic: str) -> list[GroupLag]:
        raise ConnectError("the brokers did not answer within 8 s")

    (unknown,) = WaitingReads().complete([STOPPED], fails, AT)
    assert unknown.numbers["waiting"] is None
    assert unknown.numbers["waiting_unknown"] == "the brokers did not answer within 8 s"
    assert "; its consumer groups: unknown (the brokers did not answer within 8 s)" in unknown.text


def test_the_groups_are_read_when_the_topic_stops_then_every_few_ticks_and_again_when_it_stops_again() -> None:
    asked: list[int] = []
    reads = WaitingReads(every=3)

    def tick(n: int, findings: list[LoadFinding]) -> list[LoadFinding]:
        def groups_of(topic: str) -> list[GroupLag]:
            asked.append(n)
            return [_group("billing", {0: 0})]

        return reads.complete(findings, groups_of, AT + n * 5_000)

    for n in range(1, 8):
        (stopped,) = tick(n, [STOPPED])
    assert asked == [1, 4, 7]  # not every tick: a group read each time
    assert stopped.numbers["waiting_read_at_ms"] == AT + 7 * 5_000
    reads.complete([STOPPED], lambda topic: asked.append(-1) or [], AT + 7 * 5_000)  # the same tick again: no read
    assert asked == [1, 4, 7]
    assert tick(8, [SKEW]) == [SKEW]  # traffic again: the topic is forgotten ...
    tick(9, [STOPPED])
    assert asked == [1, 4, 7, 9]  # ... and read as soon as it stops again
