"""Helpers of the console tests: the frozen time, recorded events, and deterministic waiting.

Tests never sleep: ``settle`` waits for every worker, then lets the message queue drain; cluster-side
conditions are polled with a deadline.
"""

from __future__ import annotations

from contextlib import suppress

from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerFailed

from core.console.protocols import BackendEvent, EventKind
from core.messages.reader import CREATE_TIME, Message

FROZEN_NOW = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC, the synthetic snapshot's time


def recorded_events() -> list[BackendEvent]:
    """A few events as the live backend reports them."""
    base = int(FROZEN_NOW * 1000) - 600_000
    return [
        BackendEvent(base, EventKind.BROKER_LEFT, "broker 6 left (kafka-6.example:9092)", None, "/brokers/ids/6",
                     "error", broker=6),
        BackendEvent(base + 4_000, EventKind.CONTROLLER_MOVED, "controller moved 6 -> 1 (epoch 8)", None,
                     "/controller", "warning", broker=1),
        BackendEvent(base + 9_000, EventKind.TOPIC_CREATED, "topic orders.orders-00000 created (4 partitions, rf 3)",
                     "orders.orders-00000", "/brokers/topics/orders.orders-00000"),
    ]  # fmt: skip


MESSAGES_TOPIC = "events.orders-00011"
BIG_VALUE = b"0123456789abcdef" * (5 * 1024 * 1024 // 16)  # a 5 MB message


def recorded_messages(topic: str = MESSAGES_TOPIC) -> list[Message]:
    """A topic's messages as the brokers hand them over: JSON with headers, text, binary, a 5 MB value."""
    base = int(FROZEN_NOW * 1000) - 60_000
    values = [
        (b"order-1", b'{"id": 1, "items": ["apple", "pear"], "total": 12.5}', (("trace", b"abc"),)),
        (b"order-2", b"plain text\nsecond line", ()),
        (None, bytes(range(32)), ()),
        (b"order-3", b"red \x1b[31m alert", ()),
        (b"big", BIG_VALUE, (("kind", b"bulk"),)),
    ]
    return [
        Message(topic, i % 2, i // 2, CREATE_TIME, base + i * 1000, key, value, headers, broker=1)
        for i, (key, value, headers) in enumerate(values)
    ]


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every worker finished and the screen caught up (thrice: workers start workers).

    An exclusive worker cancels the one it replaces; a failed worker is the app's to report (tests assert
    what it shows). Neither stops the wait.
    """
    for _ in range(3):
        for worker in list(pilot.app.workers):
            with suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await pilot.pause()


def type_fast(app: App[None], *keys: str) -> None:
    """Queue ``keys`` at once, as a fast typist or a paste over SSH delivers them (``Pilot.press`` waits
    after each key, which hides races between a key and the ones right behind it)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))
