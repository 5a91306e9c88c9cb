"""Consumer lag, its totals, the lag trend and the offset-reset rules (core.groups), without a cluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.audit import AuditLog
from core.brokers.group_admin import GroupDescription, GroupListing, GroupListings
from core.config import ConnectionSettings
from core.errors import ConnectError, KafkaRuleError, KzcError, UsageError
from core.groups.lag import GroupLag, Member, PartitionLag, group_rows, partition_lag, total
from core.groups.ops import GroupOps
from core.groups.reset import ResetRequest, parse_datetime, parse_topic_args, plan_reset


@pytest.mark.parametrize(
    ("committed", "end", "lag"),
    [(5, 12, 7), (12, 12, 0), (None, 12, None), (5, None, None), (-1, 12, None), (14, 12, -2)],
)
def test_partition_lag_is_end_minus_committed_when_both_are_known(
    committed: int | None, end: int | None, lag: int | None
) -> None:
    assert partition_lag(committed, end) == lag


def test_a_partition_without_end_offset_makes_the_total_unknown_not_zero() -> None:
    rows = [
        PartitionLag("t", 0, 5, 10),
        PartitionLag("t", 1, 3, None, unknown="the brokers did not answer"),
        PartitionLag("t", 2, None, 8),  # no committed offset: no lag, not unknown
    ]
    totals = total(rows)
    assert (totals.lag, totals.lag_at_least, totals.unknown, totals.max_lag) == (None, 5, 1, 5)
    assert rows[1].lag is None


def test_group_totals_and_topic_totals_come_from_the_same_rows() -> None:
    rows = (PartitionLag("a", 0, 0, 10), PartitionLag("a", 1, 4, 10), PartitionLag("b", 0, 1, 2))
    group = GroupLag("g", "kafka", "Empty", partitions=rows)
    assert (group.lag, group.max_lag, group.topics) == (17, 10, ("a", "b"))
    assert group.topic_lag("a").lag == 16
    assert group.summary_json()["lag"] == 17


def test_a_group_with_an_error_has_unknown_lag() -> None:
    group = GroupLag("g", "kafka", "Unknown", error="committed offsets not read")
    assert group.lag is None


def test_group_rows_list_assigned_partitions_then_committed_ones_without_owner() -> None:
    member = Member("m-1", "client", "/127.0.0.1", 1)
    rows = group_rows([(member, [("t", 1)])], {("t", 0): 3, ("t", 1): 4}, {("t", 0): 10, ("t", 1): "leader down"})
    assert [(r.partition, r.member, r.lag, r.unknown) for r in rows] == [
        (1, "m-1", None, "leader down"),
        (0, None, 7, None),
    ]


# ---- resets -------------------------------------------------------------------------------------------


KEYS = [("t", 0), ("t", 1)]
STARTS: dict[tuple[str, int], int | KzcError] = {("t", 0): 2, ("t", 1): 0}
ENDS: dict[tuple[str, int], int | KzcError] = {("t", 0): 10, ("t", 1): 20}


def plan(scenario: str, value: str | None = None, state: str = "Empty", **kwargs: object):  # type: ignore[no-untyped-def]
    request = ResetRequest("g", ("t",), scenario, value)
    committed = kwargs.pop("committed", {("t", 0): 5, ("t", 1): 15})
    return plan_reset(request, state, KEYS, committed, STARTS, ENDS, **kwargs)  # type: ignore[arg-type]


def test_reset_of_an_active_group_is_refused_with_kafkas_message() -> None:
    with pytest.raises(KafkaRuleError) as caught:
        plan("to-earliest", state="Stable")
    assert str(caught.value) == (
        "Assignments can only be reset if the group 'g' is inactive, but the current state is Stable."
    )


@pytest.mark.parametrize("state", ["Empty", "Dead"])
def test_inactive_groups_may_be_reset(state: str) -> None:
    assert plan("to-earliest", state=state).offsets == {("t", 0): 2, ("t", 1): 0}


def test_reset_to_earliest_shows_old_and_new_offsets_and_the_lag_change() -> None:
    result = plan("to-earliest")
    assert [(r.old, r.new, r.old_lag, r.new_lag) for r in result.rows] == [(5, 2, 5, 8), (15, 0, 5, 20)]
    assert result.lag_change() == (10, 28)


def test_to_latest_and_shift_by_clamped_with_kafkas_warning() -> None:
    assert plan("to-latest").offsets == {("t", 0): 10, ("t", 1): 20}
    shifted = plan("shift-by", "-4")
    assert shifted.offsets == {("t", 0): 2, ("t", 1): 11}
    assert shifted.warnings == (
        "New offset (1) is lower than earliest offset for topic partition t-0. Value will be set to 2",
    )
    high = plan("to-offset", "15")
    assert high.offsets == {("t", 0): 10, ("t", 1): 15}
    assert high.warnings == (
        "New offset (15) is higher than latest offset for topic partition t-0. Value will be set to 10",
    )


def test_shift_without_committed_offset_is_refused_as_kafka_does() -> None:
    with pytest.raises(UsageError, match="Cannot shift offset for partition t-1 since there is no current committed"):
        plan("shift-by", "1", committed={("t", 0): 5, ("t", 1): None})


def test_to_datetime_falls_back_to_the_end_for_partitions_without_such_message() -> None:
    result = plan("to-datetime", "2024-01-01T00:00:00.000", by_time={("t", 0): 7, ("t", 1): -1})
    assert result.offsets == {("t", 0): 7, ("t", 1): 20}
    assert result.warnings == ("Partition 1 from topic t is empty. Falling back to latest known offset.",)


def test_an_unknown_start_offset_stops_the_plan_with_kafkas_message() -> None:
    request = ResetRequest("g", ("t",), "to-earliest")
    with pytest.raises(KzcError, match="Error getting starting offset of topic partition: t-0"):
        plan_reset(request, "Empty", KEYS, {}, {("t", 0): KzcError("leader down")}, ENDS)


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2024-05-01T12:00:00.000", 1714564800000),
        ("2024-05-01T12:00:00.000Z", 1714564800000),
        ("2024-05-01T14:00:00.000+02:00", 1714564800000),
        ("2024-05-01T14:00:00.000+0200", 1714564800000),
        ("2024-05-01T10:00:00.000-02", 1714564800000),
    ],
)
def test_datetimes_parse_as_kafka_does(text: str, ms: int) -> None:
    assert parse_datetime(text) == ms


@pytest.mark.parametrize("text", ["2024-05-01", "2024-05-01T12:00:00", "2024-13-01T12:00:00.000", "yesterday"])
def test_bad_datetimes_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_datetime(text)


def test_topic_args_parse_as_kafka_does() -> None:
    assert parse_topic_args(["a", "b:0,2"]) == (["a"], [("b", 0), ("b", 2)])
    with pytest.raises(UsageError, match="Invalid topic arg 'b:1:2', expected topic name and partitions"):
        parse_topic_args(["b:1:2"])
    with pytest.raises(UsageError, match="Invalid partition 'x' specified in topic arg 'b:x''"):
        parse_topic_args(["b:x"])


# ---- a broker that does not answer: unknown, never zero (GroupOps on a fake of our AdminClient wrapper) ----


class _Admin:
    """The AdminClient wrapper's group calls, answering as brokers would with one leader down."""

    def __init__(self, ends: dict[tuple[str, int], int | KzcError] | None, error: KzcError | None = None) -> None:
        self.ends, self.error = ends, error

    def list_consumer_groups(self) -> GroupListings:
        return GroupListings((GroupListing("g", "Empty", False),))

    def describe_consumer_groups(self, ids: list[str]) -> dict[str, GroupDescription]:
        return {"g": GroupDescription("g", "Empty", "", 1, (), False)}

    def list_consumer_group_offsets(self, ids: list[str]) -> dict[str, dict[tuple[str, int], int | None]]:
        return {"g": {("t", 0): 5, ("t", 1): 5}}

    def list_offsets(self, partitions: list[tuple[str, int]], spec: str) -> dict[tuple[str, int], int | KzcError]:
        if self.error is not None:
            raise self.error
        assert self.ends is not None
        return self.ends


def _overview(admin: _Admin) -> GroupLag:
    ops = GroupOps(admin, None, ConnectionSettings(), audit=AuditLog("test", Path("/dev/null")))  # type: ignore[arg-type]
    (group,) = ops.overview().groups
    return group


def test_a_partition_whose_leader_does_not_answer_is_unknown_not_zero() -> None:
    group = _overview(_Admin({("t", 0): 10, ("t", 1): KzcError("leader not available")}))
    rows = {r.partition: r for r in group.partitions}
    assert (rows[0].lag, rows[1].lag) == (5, None)
    assert rows[1].unknown is not None and "leader not available" in rows[1].unknown
    assert group.lag is None and group.summary_json()["lag_at_least"] == 5


def test_brokers_that_do_not_answer_make_every_lag_unknown() -> None:
    group = _overview(_Admin(None, ConnectError("no broker answered")))
    assert group.lag is None and all(r.lag is None and r.unknown for r in group.partitions)


@pytest.mark.parametrize(("name", "ok"), [("billing", True), ("a/b", False), ("..", False), ("", False)])
def test_only_plain_names_are_looked_up_under_consumers(name: str, ok: bool) -> None:
    from core.groups.legacy import is_znode_name

    assert is_znode_name(name) is ok
