"""Requests and notifications the controller consumes: ``/admin/reassign_partitions``,
``/admin/preferred_replica_election``, ``/isr_change_notification/isr_change_<seq>`` and
``/log_dir_event_notification/log_dir_event_<seq>`` (zk-layout §2.7, §2.8, §2.10)."""

from __future__ import annotations

from dataclasses import dataclass

from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes.base import (
    Malformed,
    Row,
    as_int,
    as_int_list,
    as_object,
    as_str,
    describe,
    int_list_text,
    load_object,
    opt_int,
    parser,
    req_int,
    req_version,
)


@dataclass(frozen=True, slots=True)
class ReassignmentRequest:
    """``/admin/reassign_partitions``: ``(topic, partition, target replicas)`` for each partition to move.

    The controller does not validate these lists (no duplicate, negative or live-broker check).
    """

    version: int
    partitions: tuple[tuple[str, int, tuple[int, ...]], ...]


@dataclass(frozen=True, slots=True)
class PreferredElectionRequest:
    """``/admin/preferred_replica_election``: partitions whose preferred replica should become leader."""

    version: int
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True, slots=True)
class IsrChangeNotification:
    """``/isr_change_notification/isr_change_<seq>`` (0.9+, unused with AlterIsr from IBP 2.7-IV2):
    partitions whose ISR a leader changed; the controller reads and deletes it."""

    version: int
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True, slots=True)
class LogDirEventNotification:
    """``/log_dir_event_notification/log_dir_event_<seq>`` (1.0+): a broker reports a failed log dir.

    ``event`` 1 is LogDirFailure, the only event; Kafka reads only ``broker``, so ``event`` may be absent.
    """

    version: int
    broker: int
    event: int | None


def _entries(obj: dict[str, object], what: str) -> list[dict[str, object]]:
    if "partitions" not in obj:
        raise Malformed('required field "partitions" is missing')
    items = obj["partitions"]
    if type(items) is not list:
        raise Malformed(f'"partitions" is {describe(items)}, expected an array')
    return [as_object(item, f"{what} entry {index}") for index, item in enumerate(items)]


def _topic_partition(entry: dict[str, object], index: int) -> TopicPartition:
    for key in ("topic", "partition"):
        if key not in entry:
            raise Malformed(f'entry {index} has no "{key}"')
    return (
        as_str(entry["topic"], f"topic of entry {index}"),
        as_int(entry["partition"], f"partition of entry {index}"),
    )


def _topic_partitions(data: bytes, what: str) -> tuple[int, tuple[TopicPartition, ...]]:
    obj = load_object(data)
    version = req_version(obj)
    return version, tuple(_topic_partition(entry, i) for i, entry in enumerate(_entries(obj, what)))


@parser
def parse_reassignment(path: str, data: bytes) -> ReassignmentRequest:
    """Parse ``/admin/reassign_partitions``:
    ``{"version":1,"partitions":[{"topic","partition","replicas"}]}``."""
    obj = load_object(data)
    version = req_version(obj)
    partitions = []
    for index, entry in enumerate(_entries(obj, "reassignment")):
        topic, partition = _topic_partition(entry, index)
        if "replicas" not in entry:
            raise Malformed(f'entry {index} has no "replicas"')
        partitions.append((topic, partition, as_int_list(entry["replicas"], f"replicas of entry {index}")))
    return ReassignmentRequest(version=version, partitions=tuple(partitions))


@parser
def parse_preferred_election(path: str, data: bytes) -> PreferredElectionRequest:
    """Parse ``/admin/preferred_replica_election``."""
    version, partitions = _topic_partitions(data, "election")
    return PreferredElectionRequest(version=version, partitions=partitions)


@parser
def parse_isr_change(path: str, data: bytes) -> IsrChangeNotification:
    """Parse an ISR change notification."""
    version, partitions = _topic_partitions(data, "ISR change")
    return IsrChangeNotification(version=version, partitions=partitions)


@parser
def parse_log_dir_event(path: str, data: bytes) -> LogDirEventNotification:
    """Parse a log dir event notification."""
    obj = load_object(data)
    return LogDirEventNotification(version=req_version(obj), broker=req_int(obj, "broker"), event=opt_int(obj, "event"))


# --- explain -----------------------------------------------------------------------------------------

_MAX_ROWS = 500


def _version_row(version: int) -> Row:
    return ("version", str(version), "format version (always 1)" if version == 1 else "Kafka always writes 1")


def _capped(rows: list[Row], total: int) -> list[Row]:
    if total > _MAX_ROWS:
        rows.append(("...", f"{total - _MAX_ROWS} more", "entries not shown"))
    return rows


def explain_reassignment(value: ReassignmentRequest) -> list[Row]:
    """Meaning of a reassignment request."""
    rows = [
        _version_row(value.version),
        (
            "partitions",
            str(len(value.partitions)),
            "partitions to move; the controller removes each when done and the znode when empty "
            "(lingering: controller absent or stuck)",
        ),
    ]
    for topic, partition, replicas in value.partitions[:_MAX_ROWS]:
        problem = ""
        if not replicas:
            problem = " - empty list: the controller does not check this"
        elif len(set(replicas)) != len(replicas):
            problem = " - duplicate brokers: the controller does not check this"
        rows.append((f"{topic}-{partition}", int_list_text(replicas), f"target replicas{problem}"))
    return _capped(rows, len(value.partitions))


def _explain_partitions(version: int, partitions: tuple[TopicPartition, ...], summary: str, each: str) -> list[Row]:
    rows = [_version_row(version), ("partitions", str(len(partitions)), summary)]
    rows.extend((f"{topic}-{partition}", "", each) for topic, partition in partitions[:_MAX_ROWS])
    return _capped(rows, len(partitions))


def explain_preferred_election(value: PreferredElectionRequest) -> list[Row]:
    """Meaning of a preferred replica election request."""
    return _explain_partitions(
        value.version,
        value.partitions,
        "partitions to move back to their preferred leader; the controller deletes the znode",
        "elect the first replica of the assignment if it is live and in the ISR",
    )


def explain_isr_change(value: IsrChangeNotification) -> list[Row]:
    """Meaning of an ISR change notification."""
    return _explain_partitions(
        value.version,
        value.partitions,
        "partitions whose ISR a leader changed (before AlterIsr, IBP < 2.7-IV2); "
        "a backlog means the controller is absent or stuck",
        "the controller re-reads its state and tells the brokers",
    )


def explain_log_dir_event(value: LogDirEventNotification) -> list[Row]:
    """Meaning of a log dir event notification."""
    event = "absent" if value.event is None else str(value.event)
    return [
        _version_row(value.version),
        ("broker", str(value.broker), f"broker {value.broker} lost a log directory"),
        (
            "event",
            event,
            "LogDirFailure: its replicas there go offline"
            if value.event == 1
            else "unknown event; Kafka writes 1 (LogDirFailure)",
        ),
    ]
