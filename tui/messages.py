"""App-level messages, named as past events."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from core.zk_session import ConnectionState


@dataclass
class ConnectionChanged(Message):
    """The ZooKeeper connection state changed (posted from kazoo's thread)."""

    state: ConnectionState


@dataclass
class Connected(Message):
    """The first connection succeeded; ``summary`` says what kzc is connected to."""

    summary: str


@dataclass
class ConnectFailed(Message):
    """Connecting failed; ``reason`` is the user-facing message."""

    reason: str
