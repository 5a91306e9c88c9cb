"""A live event as subscribers receive it: when it was seen, and what the console links it to."""

from __future__ import annotations

from dataclasses import dataclass

from core.kafka.znodes.paths import CONTROLLER, broker_path, deletion_marker_path, state_path, topic_path
from core.live.events import (
    BrokerLeft,
    BrokerRegistered,
    BrokerUpdated,
    ControllerEpochChanged,
    ControllerMoved,
    DeletionQueued,
    TopicCreated,
    TopicRemoved,
    ZnodeUnreadable,
)
from core.live.live_event import EventKind, LiveEvent


@dataclass(frozen=True, slots=True)
class TimedEvent:
    """A live event with when it was seen, and what the console links it to (``core.live.model`` hands
    these to its subscribers)."""

    event: LiveEvent
    at_ms: int

    def describe(self) -> str:
        """The event's own line."""
        return self.event.describe()

    @property
    def kind(self) -> EventKind:
        """What the event is about."""
        return self.event.about

    @property
    def severity(self) -> str:
        """``error``, ``warning`` or ``info``: how the event log styles the line."""
        return self.event.severity

    @property
    def broker(self) -> int | None:
        """The broker that registered or left, or the new controller (None for other events)."""
        event = self.event
        if isinstance(event, BrokerRegistered | BrokerLeft):
            return event.id
        return event.new if isinstance(event, ControllerMoved) else None

    @property
    def topic(self) -> str | None:
        """The topic the event is about, if any."""
        if isinstance(self.event, TopicCreated | TopicRemoved):
            return self.event.name
        value = getattr(self.event, "topic", None)
        return value if isinstance(value, str) else None

    @property
    def path(self) -> str | None:
        """The znode the event is about, if it names one."""
        event = self.event
        if isinstance(event, ZnodeUnreadable):
            return event.path
        if isinstance(event, BrokerRegistered | BrokerLeft | BrokerUpdated):
            return broker_path(event.id)
        if isinstance(event, ControllerMoved | ControllerEpochChanged):
            return CONTROLLER
        topic = self.topic
        partition = getattr(event, "partition", None)
        if topic is not None and isinstance(partition, int):
            return state_path(topic, partition)
        if isinstance(event, DeletionQueued):
            return deletion_marker_path(event.topic)
        return topic_path(topic) if topic is not None else None
