"""Topic znodes: assignments ``/brokers/topics/<t>`` v1 to v3, partition states
``.../partitions/<p>/state`` and deletion markers ``/admin/delete_topics/<t>`` (zk-layout §2.4 to §2.6)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from core.kafka.znodes.base import (
    INT32,
    Malformed,
    Row,
    Unreadable,
    as_int_list,
    as_object,
    describe,
    int_list_text,
    load_json,
    load_object,
    opt_str,
    parser,
    req_version,
)

Replicas = tuple[int, ...]
PartitionReplicas = tuple[tuple[int, Replicas], ...]

# Partition keys as Kafka writes them (Int.toString): canonical decimals, so "01" or "+1" are refused.
_PARTITION_KEY = re.compile(r"0|[1-9][0-9]{0,9}")
_TOPIC_ID = re.compile(r"[A-Za-z0-9_-]{22}(==)?")


def _last_segment(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class TopicAssignment:
    """``/brokers/topics/<t>``: the replicas of every partition, sorted by partition id.

    ``adding`` and ``removing`` (v2, 2.4+) hold only partitions being reassigned; during a reassignment
    ``replicas`` is origin plus target. ``topic_id`` (v3, 2.8+) is a base64 UUID or ``None``.
    """

    topic: str
    version: int
    partitions: PartitionReplicas
    adding: PartitionReplicas
    removing: PartitionReplicas
    topic_id: str | None

    @property
    def partition_count(self) -> int:
        """How many partitions the assignment lists."""
        return len(self.partitions)

    @property
    def partition_ids(self) -> tuple[int, ...]:
        """The listed partition ids, ascending."""
        return tuple(p for p, _ in self.partitions)

    def replicas(self, partition: int) -> Replicas:
        """Replicas of ``partition`` in assignment order (first = preferred leader); ``()`` if unlisted."""
        return _lookup(self.partitions, partition)

    def adding_replicas(self, partition: int) -> Replicas:
        """Replicas being added to ``partition`` by a reassignment (2.4+), else ``()``."""
        return _lookup(self.adding, partition)

    def removing_replicas(self, partition: int) -> Replicas:
        """Replicas being removed from ``partition`` by a reassignment (2.4+), else ``()``."""
        return _lookup(self.removing, partition)

    def is_reassigning(self, partition: int) -> bool:
        """Whether ``partition`` is being reassigned: it has adding or removing replicas (2.4+)."""
        return bool(self.adding_replicas(partition) or self.removing_replicas(partition))

    @property
    def reassigning_partitions(self) -> tuple[int, ...]:
        """Partitions with a reassignment in flight, ascending."""
        return tuple(sorted({p for p, _ in self.adding} | {p for p, _ in self.removing}))


def _lookup(table: PartitionReplicas, partition: int) -> Replicas:
    # Partitions are normally exactly 0..N-1, so the id is the index; fall back to a scan otherwise.
    if 0 <= partition < len(table) and table[partition][0] == partition:
        return table[partition][1]
    return next((replicas for p, replicas in table if p == partition), ())


@parser
def parse_topic(path: str, data: bytes) -> TopicAssignment:
    """Parse a topic assignment v1 to v3; missing ``adding_replicas``, ``removing_replicas``, ``topic_id``
    and even ``partitions`` are tolerated, as Kafka's ``TopicZNode.decode`` does."""
    obj = load_object(data)
    version = req_version(obj)
    topic_id = opt_str(obj, "topic_id")
    if topic_id is not None and not _is_topic_id(topic_id):
        raise Malformed(f"topic_id {topic_id[:40]!r} is not a base64 UUID (Kafka's Uuid.fromString fails)")
    raw_partitions = as_object(obj.get("partitions", {}), '"partitions"')
    adding_raw = _optional_object(obj, "adding_replicas")
    removing_raw = _optional_object(obj, "removing_replicas")
    partitions: list[tuple[int, Replicas]] = []
    adding: list[tuple[int, Replicas]] = []
    removing: list[tuple[int, Replicas]] = []
    for key, replicas in raw_partitions.items():
        if not _PARTITION_KEY.fullmatch(key) or int(key) > INT32[1]:
            raise Malformed(f"partition key {key[:40]!r} is not a partition number")
        partition = int(key)
        partitions.append((partition, as_int_list(replicas, f"replicas of partition {key}")))
        # Kafka only looks up the moving replicas of listed partitions, by the same key.
        if key in adding_raw and (moving := as_int_list(adding_raw[key], f"adding_replicas of {key}")):
            adding.append((partition, moving))
        if key in removing_raw and (moving := as_int_list(removing_raw[key], f"removing_replicas of {key}")):
            removing.append((partition, moving))
    return TopicAssignment(
        topic=_last_segment(path),
        version=version,
        partitions=tuple(sorted(partitions)),
        adding=tuple(sorted(adding)),
        removing=tuple(sorted(removing)),
        topic_id=topic_id,
    )


def _optional_object(obj: dict[str, object], key: str) -> dict[str, object]:
    return as_object(obj[key], f'"{key}"') if key in obj else {}


def _is_topic_id(text: str) -> bool:
    if not _TOPIC_ID.fullmatch(text):
        return False
    try:
        return len(base64.urlsafe_b64decode(text[:22] + "==")) == 16
    except (binascii.Error, ValueError):
        return False


@dataclass(frozen=True, slots=True)
class PartitionState:
    """``/brokers/topics/<t>/partitions/<p>/state``: leader, ISR and epochs of one partition.

    ``leader`` is a broker id, -1 (no leader) or -2 (LeaderDuringDelete). ``leader_recovery_state`` is 0
    (RECOVERED, also when absent) or 1 (RECOVERING, 3.2+). ``version`` is always 1. Kept small: a
    snapshot holds one per partition.
    """

    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    controller_epoch: int
    leader_recovery_state: int
    version: int

    @property
    def has_leader(self) -> bool:
        """Whether a broker leads the partition (leader >= 0)."""
        return self.leader >= 0


_I32_MIN, _I32_MAX = INT32


def parse_partition_state(path: str, data: bytes | None) -> PartitionState | Unreadable:
    """Parse a partition state znode (called 100k+ times per snapshot, so checks are inlined).

    Required, as in Kafka 3.9's ``TopicPartitionStateZNode.decode``: ``leader``, ``leader_epoch``,
    ``isr``, ``controller_epoch`` (32-bit integers); ``leader_recovery_state`` is optional, 0 or 1.
    """
    raw = data or b""
    try:
        obj = load_json(raw)
        if type(obj) is not dict:
            raise Malformed(f"the data is {describe(obj)}, expected a JSON object")
        leader = obj.get("leader")
        leader_epoch = obj.get("leader_epoch")
        controller_epoch = obj.get("controller_epoch")
        version = obj.get("version")
        isr = obj.get("isr")
        recovery = obj.get("leader_recovery_state", 0)
        if not (
            type(leader) is int
            and type(leader_epoch) is int
            and type(controller_epoch) is int
            and type(version) is int
            and type(recovery) is int
            and type(isr) is list
            and _I32_MIN <= leader <= _I32_MAX
            and _I32_MIN <= leader_epoch <= _I32_MAX
            and _I32_MIN <= controller_epoch <= _I32_MAX
            and _I32_MIN <= version <= _I32_MAX
            and recovery in (0, 1)
        ):
            raise Malformed(_state_problem(obj))
        isr_tuple = tuple(isr)
        for replica in isr_tuple:
            if type(replica) is not int or not _I32_MIN <= replica <= _I32_MAX:
                raise Malformed(f'"isr" holds {describe(replica)}, expected 32-bit broker ids')
        return PartitionState(leader, leader_epoch, isr_tuple, controller_epoch, recovery, version)
    except Malformed as error:
        return Unreadable(path, raw, str(error))
    except Exception as error:  # the same safety net as @parser: never raise
        return Unreadable(path, raw, f"kzc parser error: {type(error).__name__}: {error}")


def _state_problem(obj: dict[str, object]) -> str:
    # The slow path: find the first offending field for the message.
    for key in ("leader", "leader_epoch", "isr", "controller_epoch", "version"):
        if key not in obj:
            return f'required field "{key}" is missing'
        value = obj[key]
        if key == "isr":
            if type(value) is not list:
                return f'"isr" is {describe(value)}, expected an array of integers'
        elif type(value) is not int:
            return f'"{key}" is {describe(value)}, expected an integer'
        elif not _I32_MIN <= value <= _I32_MAX:
            return f'"{key}" is {describe(value)}, beyond the 32-bit integer Kafka reads'
    recovery = obj.get("leader_recovery_state")
    return f'"leader_recovery_state" is {describe(recovery)}; Kafka knows 0 (RECOVERED) and 1 (RECOVERING)'


@dataclass(frozen=True, slots=True)
class DeletionMarker:
    """``/admin/delete_topics/<t>``: a request to delete ``topic``; the znode's existence is the request."""

    topic: str


@parser
def parse_deletion_marker(path: str, data: bytes) -> DeletionMarker:
    """The marker for the topic named by the path; Kafka ignores the data (written empty)."""
    return DeletionMarker(topic=_last_segment(path))


# --- explain -----------------------------------------------------------------------------------------

_TOPIC_VERSIONS = {
    1: "v1 (0.8 to 2.3): replicas only",
    2: "v2 (2.4 to 2.7): adds adding_replicas/removing_replicas",
    3: "v3 (2.8+): adds optional topic_id",
}
_MAX_PARTITION_ROWS = 500


def explain_topic(value: TopicAssignment) -> list[Row]:
    """Field-by-field meaning of a topic assignment (at most the first 500 partitions)."""
    rows: list[Row] = [
        ("topic", value.topic, "from the znode name"),
        ("version", str(value.version), _TOPIC_VERSIONS.get(value.version, "unknown version; read as v3")),
    ]
    if value.topic_id is None:
        rows.append(("topic_id", "absent", "no topic id: created before 2.8 or IBP < 2.8 (the controller adds one)"))
    elif value.topic_id.startswith("AAAAAAAAAAAAAAAAAAAAAA"):
        rows.append(("topic_id", value.topic_id, "the zero UUID: Kafka treats it as no id"))
    else:
        rows.append(("topic_id", value.topic_id, "topic id (KIP-516): tells a recreated topic from the old one"))
    rows.append(("partitions", str(value.partition_count), _partition_summary(value)))
    for partition, replicas in value.partitions[:_MAX_PARTITION_ROWS]:
        meaning = (
            f"preferred leader {replicas[0]}, replication factor {len(replicas)}"
            if replicas
            else "no replicas: the partition can never be online"
        )
        rows.append((f"partitions.{partition}", int_list_text(replicas), meaning))
        if value.is_reassigning(partition):
            adding, removing = value.adding_replicas(partition), value.removing_replicas(partition)
            rows.append(
                (
                    f"reassigning.{partition}",
                    f"+{int_list_text(adding)} -{int_list_text(removing)}",
                    "reassignment in flight: adding joins the replicas, removing leaves when done",
                )
            )
    if value.partition_count > _MAX_PARTITION_ROWS:
        rows.append(("...", f"{value.partition_count - _MAX_PARTITION_ROWS} more", "partitions not shown"))
    return rows


def _partition_summary(value: TopicAssignment) -> str:
    ids = value.partition_ids
    if not ids:
        return "no partitions listed: Kafka reads this as a topic without partitions"
    if ids != tuple(range(len(ids))):
        return "partition ids are not exactly 0..N-1, which Kafka always writes"
    moving = len(value.reassigning_partitions)
    count = f"{len(ids)} partition" + ("" if len(ids) == 1 else "s")
    return count + (f", {moving} being reassigned" if moving else "")


def explain_partition_state(value: PartitionState) -> list[Row]:
    """Field-by-field meaning of a partition state."""
    if value.leader == -1:
        leader = "no leader: partition is offline"
    elif value.leader == -2:
        leader = "LeaderDuringDelete: topic is being deleted (not normally stored)"
    elif value.leader < 0:
        leader = "invalid leader id"
    elif value.leader in value.isr:
        leader = f"broker {value.leader} serves reads and writes"
    else:
        leader = f"broker {value.leader} leads but is not in the ISR: inconsistent"
    if not value.isr:
        isr = "empty ISR: no in-sync replica (possible before 1.1 with unclean election)"
    else:
        isr = f"{len(value.isr)} replica(s) in sync with the leader"
    recovery = {
        0: "RECOVERED (absent field means the same; written only from 3.2)",
        1: "RECOVERING: leader was elected uncleanly and is still recovering (3.2+)",
    }.get(value.leader_recovery_state, "unknown state: Kafka knows 0 and 1")
    return [
        ("leader", str(value.leader), leader),
        (
            "leader_epoch",
            str(value.leader_epoch),
            "leader generation: bumped by each controller leader/ISR change"
            if value.leader_epoch >= 0
            else "negative: Kafka never writes this",
        ),
        ("isr", int_list_text(value.isr), isr),
        (
            "controller_epoch",
            str(value.controller_epoch),
            f"last written by the controller of epoch {value.controller_epoch}",
        ),
        ("leader_recovery_state", str(value.leader_recovery_state), recovery),
        ("version", str(value.version), "always 1" if value.version == 1 else "Kafka always writes 1"),
    ]


def explain_deletion_marker(value: DeletionMarker) -> list[Row]:
    """Meaning of a deletion marker."""
    return [
        (
            "topic",
            value.topic,
            "deletion requested; the controller removes this marker when the topic is "
            "gone (lingering: controller absent, delete.topic.enable=false, or deletion blocked)",
        )
    ]
