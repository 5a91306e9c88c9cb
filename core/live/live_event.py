"""What every live event is (``core.live.events`` defines them): its name, what it is about and its
severity for the console (``EventKind``, declared on each event class), and its JSON (``LiveEvent.to_json``:
its fields in order, each as ``_value_json`` writes it). Znode values are written with the field names
``docs/live-events.md`` shows; a value Kafka could not read is ``{"unreadable": reason}``.
"""

from __future__ import annotations

import enum
from dataclasses import Field, fields
from typing import Any, ClassVar

from core.kafka.znodes import (
    BrokerRegistration,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)


class EventKind(enum.Enum):
    """What an event is about; the TUI uses it to count controller moves and to style log lines."""

    BROKER_JOINED = "broker-joined"
    BROKER_LEFT = "broker-left"
    BROKER_CHANGED = "broker-changed"
    CONTROLLER_MOVED = "controller-moved"
    CONTROLLER_GONE = "controller-gone"
    TOPIC_CREATED = "topic-created"
    TOPIC_DELETED = "topic-deleted"
    TOPIC_CHANGED = "topic-changed"
    PARTITION_CHANGED = "partition-changed"
    DELETION_QUEUED = "deletion-queued"
    DELETION_MARKER_REMOVED = "deletion-marker-removed"
    ADMIN_REQUEST = "admin-request"
    NOTIFICATION = "notification"
    CONFIG_CHANGED = "config-changed"
    CONNECTION = "connection"
    RESYNC = "resync"


def _value_json(value: object) -> object:
    """A field's value as JSON: an event as its JSON, an enum as its value, a tuple as a list, a znode value as
    ``znode_json`` writes it; JSON's own types as they are."""
    if isinstance(value, LiveEvent):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_value_json(item) for item in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    return znode_json(value)


class LiveEvent:
    """Base of every live event: ``kind`` is the class name, the ``"event"`` value of its JSON. Each event
    class says beside its fields what it is about (``ABOUT``) and how the event log styles it
    (``SEVERITY``), overriding ``about``/``severity`` where that depends on the values."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    ABOUT: ClassVar[EventKind] = EventKind.PARTITION_CHANGED
    SEVERITY: ClassVar[str] = "info"

    @property
    def kind(self) -> str:
        """The event's name, e.g. ``ControllerMoved``."""
        return type(self).__name__

    @property
    def about(self) -> EventKind:
        """What the event is about."""
        return self.ABOUT

    @property
    def severity(self) -> str:
        """``error``, ``warning`` or ``info``: how the event log styles the line."""
        return self.SEVERITY

    def describe(self) -> str:
        """One line for an operator, e.g. ``controller moved 1 -> 3 (epoch 8)``."""
        raise NotImplementedError

    def to_json(self) -> dict[str, object]:
        """A JSON-able dict: ``{"event": kind, ...fields}``, the fields in their order, each written by its
        ``json`` metadata when it has one, else as ``_value_json`` writes a value."""
        data: dict[str, object] = {"event": self.kind}
        for each in fields(self):
            data[each.name] = each.metadata.get("json", _value_json)(getattr(self, each.name))
        return data


def znode_json(value: object) -> dict[str, object]:
    """A znode value of ``core.kafka.znodes`` as JSON, by its type."""
    if isinstance(value, Unreadable):
        return {"unreadable": value.reason}
    if isinstance(value, BrokerRegistration):
        return registration_json(value)
    if isinstance(value, TopicAssignment):
        return assignment_json(value)
    if isinstance(value, PartitionState):
        return partition_state_json(value)
    if isinstance(value, ReassignmentRequest):
        return reassignment_json(value)
    if isinstance(value, PreferredElectionRequest):
        return election_json(value)
    raise TypeError(f"no JSON for a {type(value).__name__} in a live event")


def registration_json(value: BrokerRegistration) -> dict[str, object]:
    """A broker registration as JSON."""
    return {
        "version": value.version,
        "host": value.host,
        "port": value.port,
        "endpoints": [str(e) for e in value.endpoints],
        "rack": value.rack,
        "jmx_port": value.jmx_port,
        "timestamp_ms": value.timestamp_ms,
    }


def assignment_json(value: TopicAssignment) -> dict[str, object]:
    """A topic assignment as JSON: partitions (and moving replicas) keyed by partition id as text."""
    return {
        "version": value.version,
        "topic_id": value.topic_id,
        "partitions": {str(p): list(r) for p, r in value.partitions},
        "adding": {str(p): list(r) for p, r in value.adding},
        "removing": {str(p): list(r) for p, r in value.removing},
    }


def partition_state_json(value: PartitionState) -> dict[str, object]:
    """A partition state as JSON, with Kafka's field names."""
    return {
        "leader": value.leader,
        "leader_epoch": value.leader_epoch,
        "isr": list(value.isr),
        "controller_epoch": value.controller_epoch,
        "leader_recovery_state": value.leader_recovery_state,
        "version": value.version,
    }


def reassignment_json(value: ReassignmentRequest) -> dict[str, object]:
    """A reassignment request as JSON: ``partitions`` as Kafka writes them."""
    return {
        "version": value.version,
        "partitions": [{"topic": t, "partition": p, "replicas": list(r)} for t, p, r in value.partitions],
    }


def election_json(value: PreferredElectionRequest) -> dict[str, object]:
    """A preferred replica election request as JSON."""
    return {"version": value.version, "partitions": [{"topic": t, "partition": p} for t, p in value.partitions]}
