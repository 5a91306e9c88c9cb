"""Consumer groups' lag in the history store: the ``group_lag`` rows ``kzc record`` writes at each traffic tick
(``core.history.schema.GROUP_LAG_SCHEMA``), and the groups read back from them (a recorded moment).

The rows hold what ``core.groups.lag`` computed at the tick (committed offset, the high watermark then, the lag
or why it is unknown); read back, a partition's lag is the same rule over the same two recorded offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import Any

from core.brokers.capabilities import registered_bootstrap
from core.brokers.group_admin import GroupAdmin
from core.config import ConnectionSettings
from core.errors import KzcError
from core.groups.lag import GroupLag, PartitionLag
from core.groups.ops import GroupOps
from core.history.recorder import GroupsRead
from core.history.schema import Row
from core.snapshot.model import ClusterSnapshot
from core.traffic.sample import TIMEOUT_S, Sample
from core.zookeeper.session import ZkSession


def group_lag_rows(ts_ms: int, groups: Sequence[GroupLag] | str, unlisted: str | None = None) -> Iterator[Row]:
    """The ``group_lag`` rows of one tick: each group's partitions with a committed offset, and one row without a
    topic for a group that holds none (or whose offsets could not be read: its error in ``unknown``).
    ``groups`` a string: why no group could be read, in one row without a group; so is ``unlisted``, why some
    groups may be missing (a broker did not list its groups)."""
    if isinstance(groups, str):
        yield {"ts_ms": ts_ms, "seq": 1, "unknown": groups}
        return
    seq = 0
    if unlisted is not None:
        seq += 1
        yield {"ts_ms": ts_ms, "seq": seq, "unknown": f"some groups may be missing ({unlisted})"}
    for group in groups:
        head: Row = {"ts_ms": ts_ms, "group": group.group, "source": group.source, "state": group.state}
        if not group.partitions:
            seq += 1
            yield head | {"seq": seq, "unknown": group.error}
        for p in group.partitions:
            seq += 1
            yield head | {"seq": seq, "topic": p.topic, "partition": p.partition, "committed": p.committed,
                          "end_offset": p.end, "lag": p.lag, "unknown": p.unknown}  # fmt: skip


def groups_read(ops: Callable[[ClusterSnapshot], GroupOps]) -> GroupsRead:
    """``kzc record``'s read of the groups at a traffic tick: every group's committed offsets, then the tick's
    sample, and the offsets against its high watermarks (``GroupOps.committed_lag``), as rows; ``ops`` gives the
    groups' reader for the snapshot (it may open it at the first call). Never raises: a failed read is one row
    saying why (the sample is then left to the caller)."""

    def read(snapshot: ClusterSnapshot, sample: Callable[[], Sample], ts_ms: int) -> list[Row]:
        try:
            overview = ops(snapshot).committed_lag(lambda: sample().end_offsets())
        except KzcError as exc:
            return list(group_lag_rows(ts_ms, f"the consumer groups could not be read: {exc}"))
        return list(group_lag_rows(ts_ms, overview.groups, overview.unlisted))

    return read


def recorded_groups_read(
    settings: ConnectionSettings, session: ZkSession, closing: ExitStack, admin: GroupAdmin | None = None
) -> GroupsRead:
    """The groups' read of a recorder (``kzc record``'s and the console's, ``groups_read``): Kafka-stored groups
    through ``admin`` (a client the caller holds: the console's reads, no second one), else from
    ``--bootstrap-server``, else from the brokers the registrations list (the client is made at the first tick that
    finds one, and kept; ``closing`` closes it); ZooKeeper-stored ones from ``session``."""
    held = [GroupOps(admin, session, settings)] if admin is not None else []

    def ops(snapshot: ClusterSnapshot) -> GroupOps:
        if held and held[0].admin is not None:
            return held[0]
        brokers = {b: entry.registration for b, entry in snapshot.brokers.items()}
        found = settings.bootstrap_servers or registered_bootstrap(brokers, settings.kafka_security.protocol)
        admin = GroupAdmin(found, security=settings.kafka_security, timeout=TIMEOUT_S) if found else None
        if admin is not None:
            closing.callback(admin.close)
        held[:] = [GroupOps(admin, session, settings)]
        return held[0]

    return groups_read(ops)


def groups_of_rows(rows: Sequence[dict[str, Any]], as_of_ms: int) -> tuple[GroupLag, ...]:
    """The groups one tick's ``group_lag`` rows hold (no members: the recorder reads none), read at ``as_of_ms``;
    a group's error is the ``unknown`` of its row without a topic."""
    found: dict[str, tuple[Row, list[PartitionLag], str | None]] = {}
    for row in sorted(rows, key=lambda r: r["seq"]):
        if row["group"] is None:
            continue
        first, partitions, _ = found.setdefault(row["group"], (row, [], None))
        if row["topic"] is None:
            found[row["group"]] = (first, partitions, row["unknown"])
            continue
        partitions.append(
            PartitionLag(row["topic"], row["partition"], row["committed"], row["end_offset"], unknown=row["unknown"])
        )
    return tuple(
        GroupLag(name, first["source"] or "", first["state"] or "", (), tuple(parts), error=error, as_of_ms=as_of_ms)
        for name, (first, parts, error) in sorted(found.items())
    )
