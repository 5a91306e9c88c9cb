"""ZooKeeper-stored consumer groups: the old Scala consumer's ``/consumers/<group>/...`` znodes (0.8 to 0.10).

- ``/consumers/<group>/ids/<consumer id>``: one ephemeral znode per live consumer, JSON
  ``{"version":1,"subscription":{"<topic>":<streams>},"pattern":"static","timestamp":"..."}``;
- ``/consumers/<group>/owners/<topic>/<partition>``: ephemeral, holds the owning consumer thread
  (``<consumer id>-<thread>``);
- ``/consumers/<group>/offsets/<topic>/<partition>``: the committed offset as a decimal string.

The brokers still pre-create ``/consumers`` through 3.9. Reads are pipelined (every znode of a level is
asked for at once), so a thousand groups cost a few round trips per level, not one per znode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kazoo.exceptions import KazooException, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError

from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes.paths import CONSUMERS, consumer_group_path
from core.zookeeper.session import ZkSession

_WAIT_S = 30.0


@dataclass(frozen=True)
class LegacyGroup:
    """What ZooKeeper holds for one old-consumer group.

    ``owners`` maps a partition to the consumer thread owning it; ``offsets`` to the committed offset
    (``None`` when the znode does not hold a number); ``problems`` lists znodes that could not be read.
    """

    group: str
    consumers: tuple[str, ...]
    owners: dict[TopicPartition, str]
    offsets: dict[TopicPartition, int | None]
    problems: tuple[str, ...] = ()

    def owner_of(self, key: TopicPartition) -> str | None:
        """The consumer id owning ``key`` (the thread's consumer, when it is a registered one)."""
        thread = self.owners.get(key)
        if thread is None:
            return None
        for consumer in self.consumers:
            if thread == consumer or thread.startswith(consumer + "-"):
                return consumer
        return thread


def list_legacy_groups(session: ZkSession) -> list[str]:
    """The group names under ``/consumers`` (empty when it does not exist)."""
    return sorted(session.read_children(CONSUMERS) or [])


def read_legacy_groups(session: ZkSession, groups: Sequence[str]) -> list[LegacyGroup]:
    """Read ``groups`` from ``/consumers`` (pipelined). A group that vanished meanwhile is left out.

    Raises:
        ConnectError: ZooKeeper failed or denied the reads.
    """
    groups = [g for g in groups if is_znode_name(g)]
    client = session.client
    problems: dict[str, list[str]] = {g: [] for g in groups}

    def children(paths: list[str]) -> list[list[str] | None]:
        pending = [client.get_children_async(p) for p in paths]
        found: list[list[str] | None] = []
        for path, result in zip(paths, pending, strict=True):
            try:
                found.append(list(result.get(timeout=_WAIT_S)))
            except NoNodeError:
                found.append(None)
            except (KazooException, KazooTimeoutError) as exc:
                raise session.read_error(exc, f"list the children of {path}") from exc
        return found

    def data(paths: list[str]) -> list[bytes | None]:
        pending = [client.get_async(p) for p in paths]
        found: list[bytes | None] = []
        for path, result in zip(paths, pending, strict=True):
            try:
                value, _ = result.get(timeout=_WAIT_S)
                found.append(value or b"")
            except NoNodeError:
                found.append(None)
            except (KazooException, KazooTimeoutError) as exc:
                raise session.read_error(exc, f"read {path}") from exc
        return found

    base = {g: consumer_group_path(g) for g in groups}
    tops = children([base[g] for g in groups])
    present = [g for g, top in zip(groups, tops, strict=True) if top is not None]
    ids = children([f"{base[g]}/ids" for g in present])
    consumers = {g: tuple(sorted(found or [])) for g, found in zip(present, ids, strict=True)}

    def partitions_under(kind: str) -> dict[tuple[str, str, int], str]:
        """(group, topic, partition) -> znode path, for ``owners`` or ``offsets``."""
        topic_lists = children([f"{base[g]}/{kind}" for g in present])
        topic_paths = [(g, t) for g, topics in zip(present, topic_lists, strict=True) for t in sorted(topics or [])]
        partition_lists = children([f"{base[g]}/{kind}/{t}" for g, t in topic_paths])
        paths: dict[tuple[str, str, int], str] = {}
        for (g, t), parts in zip(topic_paths, partition_lists, strict=True):
            for p in parts or []:
                try:
                    number = int(p)
                except ValueError:
                    problems[g].append(f"{base[g]}/{kind}/{t}/{p}: not a partition number")
                    continue
                paths[(g, t, number)] = f"{base[g]}/{kind}/{t}/{p}"
        return paths

    owner_paths = partitions_under("owners")
    offset_paths = partitions_under("offsets")
    owner_data = data(list(owner_paths.values()))
    offset_data = data(list(offset_paths.values()))
    owners: dict[str, dict[TopicPartition, str]] = {g: {} for g in present}
    offsets: dict[str, dict[TopicPartition, int | None]] = {g: {} for g in present}
    for (g, t, p), raw in zip(owner_paths, owner_data, strict=True):
        if raw is not None:
            owners[g][(t, p)] = raw.decode("utf-8", "replace").strip()
    for (g, t, p), raw in zip(offset_paths, offset_data, strict=True):
        if raw is None:
            continue
        offsets[g][(t, p)] = _offset(raw)
        if offsets[g][(t, p)] is None:
            problems[g].append(f"{offset_paths[(g, t, p)]}: not an offset ({_show(raw)})")
    return [LegacyGroup(g, consumers[g], owners[g], offsets[g], tuple(problems[g])) for g in present]


def is_znode_name(name: str) -> bool:
    """Whether ``name`` can be one znode under ``/consumers`` (a Kafka group id may hold ``/``; an old
    consumer's group never does), so a hostile name never becomes another path."""
    return bool(name) and "/" not in name and name not in (".", "..") and "\x00" not in name


def _offset(raw: bytes) -> int | None:
    try:
        value = int(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        return None
    return value if value >= 0 else None


def _show(raw: Any) -> str:
    text = bytes(raw)[:40].decode("utf-8", "replace")
    return repr(text)
