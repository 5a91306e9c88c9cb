"""The JSON and the console's kind and severity of one instance of every live event, pinned byte for byte.

``kzc watch --json`` writes ``json.dumps`` of each event's JSON: its keys, their order and its values are
a format scripts read. ``fixtures/live_events/pinned.jsonl`` holds, per case of ``test_live_events.CASES``
and a few more, that JSON and what ``TimedEvent`` says of it. Rewrite it only for an intended change:
``.venv/bin/python -m tests.unit.test_live_events_pinned``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.kafka.znodes import Unreadable
from core.live.events import (
    EVENT_KINDS,
    BrokerUpdated,
    ControllerMoved,
    IsrChanged,
    PartitionStateChanged,
    Resynced,
    TopicCreated,
)
from core.live.live_event import LiveEvent
from core.live.timed import TimedEvent
from tests.unit.test_live_events import BAD, CASES, _broker, _state

PINNED = Path(__file__).parent / "fixtures" / "live_events" / "pinned.jsonl"

EVENTS: list[LiveEvent] = [event for event, _ in CASES] + [
    PartitionStateChanged("orders", 3, _state(1, [1, 2], 4), _state(-1, [2], 5)),
    PartitionStateChanged(
        "orders", 3, _state(1, [1, 2], 4), Unreadable("/brokers/topics/orders/partitions/3/state", b"x", "bad")
    ),
    IsrChanged("orders", 3, (1, 3), (3, 1)),
    BrokerUpdated(2, BAD, _broker(2, 9094)),
    ControllerMoved(None, None, None),
    Resynced(False, (Resynced(True, (TopicCreated("a"),)),)),
]


def _record(event: LiveEvent) -> dict[str, object]:
    timed = TimedEvent(event, 1)
    return {
        "json": event.to_json(),
        "kind": timed.kind.value,
        "severity": timed.severity,
        "broker": timed.broker,
        "topic": timed.topic,
        "path": timed.path,
    }


def test_every_event_kind_is_pinned() -> None:
    assert {type(event) for event in EVENTS} == set(EVENT_KINDS)
    assert len(PINNED.read_text().splitlines()) == len(EVENTS)


@pytest.mark.parametrize("index", range(len(EVENTS)), ids=[f"{e.kind}-{i}" for i, e in enumerate(EVENTS)])
def test_an_events_json_kind_and_severity_are_unchanged_byte_for_byte(index: int) -> None:
    pinned = PINNED.read_text().splitlines()[index]
    assert json.dumps(_record(EVENTS[index])) == pinned


if __name__ == "__main__":
    PINNED.write_text("".join(json.dumps(_record(event)) + "\n" for event in EVENTS))
