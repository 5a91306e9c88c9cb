"""A read of a topic's messages in progress, as the console holds it: the header notes, then batches.

``open_stream`` blocks (ZooKeeper, the brokers' ApiVersions and offsets): callers run it in a worker, as every
``poll``; ``close`` from the same worker.
"""

from __future__ import annotations

from core.config import ConnectionSettings
from core.messages.reader import Message, MessageReader, PartitionStart, TailRequest
from core.messages.source import resolve_source


class TopicStream:
    """A started read: ``notes`` say where it starts and what the cluster cannot show (headers before 0.11)."""

    def __init__(self, reader: MessageReader, starts: list[PartitionStart], notes: tuple[str, ...],
                 headers_unsupported: str | None) -> None:  # fmt: skip
        self.reader = reader
        self.starts = starts
        self.notes = notes
        self.headers_unsupported = headers_unsupported

    @property
    def finished(self) -> bool:
        """Every partition read to its end as it was at the start (not following), or the count reached."""
        return self.reader.finished

    def poll(self, timeout: float, batch: int = 200) -> list[Message]:
        """Up to ``batch`` messages, waiting at most ``timeout`` seconds."""
        return self.reader.poll(timeout, batch)

    def close(self) -> None:
        """Leave (nothing to commit); safe twice."""
        self.reader.close()


def open_stream(settings: ConnectionSettings, request: TailRequest) -> TopicStream:
    """Check the topic, find its brokers, plan the starts and assign (see ``core.messages.reader``).

    Raises:
        KafkaRuleError: no such topic or partition; ConnectError: no broker to read from.
    """
    source = resolve_source(settings, request.topic)
    reader = MessageReader(source.bootstrap, security=source.security)
    try:
        starts = reader.plan(request)
        reader.start(request, starts)
    except BaseException:
        reader.close()
        raise
    notes = [request.start_description]
    notes += [f"partition {s.partition}: {s.note}" for s in starts if s.note]
    if source.headers_unsupported:
        notes.append(source.headers_unsupported)
    return TopicStream(reader, starts, tuple(notes), source.headers_unsupported)
