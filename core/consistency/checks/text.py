"""How the findings' sentences write lists, counts and locations (Kafka's compact style)."""

from __future__ import annotations

from collections.abc import Sequence


def ids(values: object) -> str:
    """Kafka's compact array style, e.g. ``[1,2,3]``."""
    if isinstance(values, Sequence) and not isinstance(values, str):
        return "[" + ",".join(str(v) for v in values) + "]"
    return str(values)


def names(values: object) -> str:
    """Quoted names, comma separated."""
    if isinstance(values, Sequence) and not isinstance(values, str):
        return ", ".join(f"'{v}'" for v in values)
    return str(values)


def tp(topic: str | None, partition: int | None) -> str:
    """``topic-partition``."""
    return f"{topic}-{partition}"


def count(n: object, word: str) -> str:
    """``1 partition``, ``3 partitions``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def offline_note(offline_replicas: Sequence[int] | None, queued_for_deletion: bool | None = None) -> str:
    """The tail naming replicas on unregistered brokers and a queued deletion."""
    note = f"; replicas on unregistered brokers: {ids(offline_replicas)}" if offline_replicas else ""
    return note + ("; the topic is queued for deletion" if queued_for_deletion else "")
