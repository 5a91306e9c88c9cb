"""The recorder stores the consumer groups' lag at each traffic tick (``group_lag`` rows): committed offsets against
the tick's own high watermarks, unknown with why (never 0), and a failed read of the groups as one row saying so."""

from __future__ import annotations

from pathlib import Path

from core.audit import AuditLog
from core.brokers.group_admin import GroupListing, GroupListings
from core.brokers.offsets import BrokerOffsets
from core.config import ConnectionSettings
from core.errors import ConnectError, KzcError
from core.groups.ops import GroupOps
from core.groups.recorded import groups_of_rows, groups_read
from core.history.recorder import Recorder, RecorderSettings
from core.history.schema import GROUP_LAG
from core.history.store import HistoryStore
from core.snapshot.model import ClusterSnapshot
from core.testdata.builder import snapshot
from core.traffic.sample import Layout, Sample

T0 = 1_800_000_000_000
LAYOUT = Layout({("a", 0): 1, ("a", 1): 2}, {1: ("h", 1), 2: ("h", 2)})


def _sample(at: int) -> Sample:
    """Broker 1 leads a-0 (high watermark 10); broker 2 (a-1) did not answer."""
    offsets = {1: BrokerOffsets(1, at, {("a", 0): 10}), 2: BrokerOffsets(2, at, unknown="broker 2: refused")}
    return Sample.of(LAYOUT, offsets, {})


class _Admin:
    """The AdminClient wrapper's ListGroups and OffsetFetch: group g committed a-0 and a-1, group h unreadable."""

    def __init__(self, fail: bool = False, problems: tuple[str, ...] = ()) -> None:
        self.fail, self.problems = fail, problems
        self.asked: list[str] = []

    def list_consumer_groups(self) -> GroupListings:
        self.asked.append("ListGroups")
        if self.fail:
            raise ConnectError("no broker answered")
        return GroupListings((GroupListing("g", "Stable", False), GroupListing("h", "Empty", False)), self.problems)

    def list_consumer_group_offsets(self, ids: list[str]) -> dict[str, dict[tuple[str, int], int | None] | KzcError]:
        self.asked.append("OffsetFetch")
        return {"g": {("a", 0): 4, ("a", 1): 5}, "h": KzcError("COORDINATOR_NOT_AVAILABLE")}


def _recorded(tmp_path: Path, admin: _Admin) -> list[dict[str, object]]:
    store = HistoryStore.create(tmp_path / "h")
    ops = GroupOps(admin, None, ConnectionSettings(), audit=AuditLog("test", Path("/dev/null")))  # type: ignore[arg-type]
    seen: list[ClusterSnapshot] = []

    def of(s: ClusterSnapshot) -> GroupOps:
        seen.append(s)
        return ops

    def sampled(_s: ClusterSnapshot, at: int) -> Sample:
        admin.asked.append("sample")
        return _sample(at)

    clock = [T0]
    rec = Recorder("c1", store, RecorderSettings(retain_ms=None), lambda: True, lambda: clock[0],
                   traffic=sampled, groups=groups_read(of))  # fmt: skip
    rec.traffic_tick()
    assert seen == []  # nothing before the first snapshot
    rec.observe(snapshot(brokers=(1, 2), full_read_ms=T0))
    rec.traffic_tick()
    rec.flush()
    return sorted(store.read(GROUP_LAG, "c1").to_pylist(), key=lambda r: int(r["seq"]))  # type: ignore[arg-type]


def test_each_tick_records_every_groups_lag_against_the_ticks_high_watermarks(tmp_path: Path) -> None:
    admin = _Admin()
    rows = _recorded(tmp_path, admin)
    # no DescribeGroups, no ListOffsets: the tick's are used, sampled after the committed offsets as
    # kafka-consumer-groups reads them (a commit between the reads is never ahead of its end offset)
    assert admin.asked == ["ListGroups", "OffsetFetch", "sample"]
    found = {(r["group"], r["topic"], r["partition"]): r for r in rows}
    a0 = found[("g", "a", 0)]
    assert (a0["ts_ms"], a0["source"], a0["state"], a0["committed"], a0["end_offset"], a0["lag"]) == (
        T0, "kafka", "Stable", 4, 10, 6)  # fmt: skip
    a1 = found[("g", "a", 1)]
    assert (a1["committed"], a1["end_offset"], a1["lag"], a1["unknown"]) == (5, None, None, "broker 2: refused")
    h = found[("h", None, None)]
    assert h["lag"] is None and "COORDINATOR_NOT_AVAILABLE" in str(h["unknown"])


def test_groups_that_cannot_be_read_are_one_row_saying_why(tmp_path: Path) -> None:
    admin = _Admin(fail=True)
    (row,) = _recorded(tmp_path, admin)
    assert admin.asked == ["ListGroups", "sample"]  # the traffic sample is still read, once
    assert row["group"] is None and row["lag"] is None
    assert str(row["unknown"]) == "the consumer groups could not be read: no broker answered"


def test_the_rows_read_back_are_the_groups_with_the_recorded_numbers(tmp_path: Path) -> None:
    g, h = groups_of_rows(_recorded(tmp_path, _Admin()), T0)
    assert (g.group, g.state, g.as_of_ms, g.lag_total.lag_at_least, g.lag) == ("g", "Stable", T0, 6, None)
    assert [(p.partition, p.lag, p.unknown) for p in g.partitions] == [(0, 6, None), (1, None, "broker 2: refused")]
    assert h.lag is None and h.error is not None and "COORDINATOR_NOT_AVAILABLE" in h.error


def test_groups_a_broker_did_not_list_are_said_to_be_missing(tmp_path: Path) -> None:
    first, *rest = _recorded(tmp_path, _Admin(problems=("broker 3: timed out",)))
    assert first["group"] is None and first["unknown"] == "some groups may be missing (not listed: broker 3: timed out)"
    assert {r["group"] for r in rest} == {"g", "h"}
