"""``ReadAttempt`` parses partition states while ZooKeeper has not answered yet: the snapshot is the same; the cyclic
collector is paused while it reads and builds."""

from __future__ import annotations

import gc
import json
from types import SimpleNamespace
from typing import Any

from kazoo.exceptions import NoNodeError
from kazoo.protocol.states import ZnodeStat

from core.snapshot import read_attempt
from core.snapshot.model import ClusterSnapshot
from core.snapshot.read_attempt import ReadAttempt


def _stat(version: int = 0, children: int = 0) -> ZnodeStat:
    return ZnodeStat(5, 6 + version, 1000, 2000 + version, version, 0, 0, 0, 10, children, 5)


class _Answer:
    """A kazoo async result; ``late`` ones are not in at their first ``ready()`` (the reader then waits)."""

    def __init__(self, value: Any, late: bool) -> None:
        self.value, self.late = value, late

    def ready(self) -> bool:
        late, self.late = self.late, False
        return not late

    def get(self, timeout: float | None = None) -> Any:
        if isinstance(self.value, Exception):
            raise self.value
        return self.value


class _Client:
    """The znodes of a small cluster, answered from memory; every ``late_every``-th answer comes late."""

    connected = True
    last_zxid = 99

    def __init__(self, znodes: dict[str, bytes], late_every: int) -> None:
        self.znodes, self.late_every, self.asked = znodes, late_every, 0
        self.collector_on_while_reading = False

    def _answer(self, value: Any) -> _Answer:
        self.asked += 1
        return _Answer(value, self.late_every > 0 and self.asked % self.late_every == 0)

    def _children(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix) :].split("/")[0] for p in self.znodes if p.startswith(prefix)})

    def exists(self, path: str) -> ZnodeStat:
        return _stat()

    def exists_async(self, path: str) -> _Answer:
        return self._answer(_stat(children=len(self._children(path))) if path in self.znodes else None)

    def get_async(self, path: str, watch: Any = None) -> _Answer:
        self.collector_on_while_reading = self.collector_on_while_reading or gc.isenabled()
        if path not in self.znodes:
            return self._answer(NoNodeError())
        return self._answer((self.znodes[path], _stat(version=len(path) % 7)))

    def get_children_async(self, path: str) -> _Answer:
        return self._answer(self._children(path) if path in self.znodes else NoNodeError())


def _cluster() -> dict[str, bytes]:
    znodes = {"/brokers": b"", "/brokers/ids": b"", "/brokers/topics": b"", "/controller_epoch": b"7"}
    for topic in ("a", "b"):
        partitions = {str(p): [1, 2] for p in range(250)}
        znodes[f"/brokers/topics/{topic}"] = json.dumps({"version": 1, "partitions": partitions}).encode()
        znodes[f"/brokers/topics/{topic}/partitions"] = b""
        for p in range(250):
            state = {"controller_epoch": 7, "leader": 1 + p % 2, "version": 1, "leader_epoch": p, "isr": [1, 2]}
            znodes[f"/brokers/topics/{topic}/partitions/{p}"] = b""
            znodes[f"/brokers/topics/{topic}/partitions/{p}/state"] = json.dumps(state).encode()
    znodes["/brokers/topics/b/partitions/17/state"] = b"{not json"  # kept as Unreadable, in order, either way
    return znodes


def _read(late_every: int, client: _Client | None = None) -> tuple[ClusterSnapshot, int, int]:
    client = client or _Client(_cluster(), late_every)
    settings = SimpleNamespace(session_timeout=10.0)
    session = SimpleNamespace(client=client, session_id=1, settings=settings, target="zk:2181")
    attempt = ReadAttempt(session, 1, None, window=64)  # type: ignore[arg-type]
    snapshot, epoch_changed = attempt.run()
    assert not epoch_changed
    builds = attempt.topics.values()
    return snapshot, sum(len(b.parsed) for b in builds), sum(b.assignment is not None for b in builds)


def test_states_parsed_while_zookeeper_has_not_answered_build_the_same_snapshot() -> None:
    at_once, parsed_early, topics_early = _read(late_every=0)
    assert parsed_early == topics_early == 0  # every answer was in: nothing parsed before the build
    waiting, parsed_early, topics_early = _read(late_every=100)
    assert topics_early == 2  # the topics' assignments first
    assert parsed_early >= read_attempt.PARSE_WHILE_WAITING  # then the states, a bounded batch each wait
    assert parsed_early < 500  # ... and the rest was parsed by the build
    assert waiting.topics == at_once.topics
    assert waiting.unreadable == at_once.unreadable
    assert [u.path for u in waiting.unreadable] == ["/brokers/topics/b/partitions/17/state"]
    assert waiting.topics["a"].states[3] == at_once.topics["a"].states[3] is not None


def test_the_collector_is_paused_while_reading_and_back_after() -> None:
    client = _Client(_cluster(), late_every=0)
    assert gc.isenabled()
    _read(0, client)
    assert client.asked > 500 and not client.collector_on_while_reading
    assert gc.isenabled()
