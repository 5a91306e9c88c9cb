"""Kafka's znode encodings: the bytes Kafka writes for a value, and the edits kzc makes to existing bytes.

``encode_new_topic`` and ``encode_topic_config`` are ``TopicZNode.encode`` and ``ConfigEntityZNode.encode``
as the Kafka version of the cluster writes them; ``add_partitions_to_raw`` extends a topic znode keeping every
other byte; ``encode_value`` re-encodes any parsed value (recordings rebuild their znodes with it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from core.errors import GuardError
from core.kafka.znodes.base import Unreadable
from core.kafka.znodes.brokers import BrokerRegistration
from core.kafka.znodes.cluster_wide import ClusterId, ControllerInfo
from core.kafka.znodes.configs import EntityConfig
from core.kafka.znodes.topics import PartitionState, TopicAssignment

Assignment = Sequence[tuple[int, Sequence[int]]]
"""Partition → replicas (first = preferred leader), ascending by partition."""

_WHITESPACE = re.compile(r"[ \t\n\r]*")


def encode_topic_config(config: Sequence[tuple[str, str]]) -> bytes:
    """``ConfigEntityZNode.encode``: ``{"version":1,"config":{...}}`` (written even when empty)."""
    return _compact({"version": 1, "config": dict(config)})


def encode_new_topic(assignment: Assignment, version: int = 3) -> bytes:
    """``TopicZNode.encode`` for a new topic without a topic id, as the Kafka that writes ``version`` does.

    v3 (2.8+): ``partitions``, empty ``adding_replicas``/``removing_replicas`` and ``version`` (Jackson's
    order for 3.x's mutable map); v2 (2.4 to 2.7): ``version``, ``partitions`` and the two empty maps;
    v1 (up to 2.3): ``version`` and ``partitions``.

    Raises:
        ValueError: ``version`` is not 1, 2 or 3.
    """
    partitions = {str(p): list(r) for p, r in assignment}
    if version == 3:
        return _compact({"partitions": partitions, "adding_replicas": {}, "removing_replicas": {}, "version": 3})
    if version == 2:
        return _compact({"version": 2, "partitions": partitions, "adding_replicas": {}, "removing_replicas": {}})
    if version == 1:
        return _compact({"version": 1, "partitions": partitions})
    raise ValueError(f"no topic znode version {version}")


def _compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def add_partitions_to_raw(raw: bytes, new: Assignment) -> bytes:
    """``raw`` (a topic znode) with ``new`` partitions appended inside its ``partitions`` object.

    Everything else, byte for byte, is kept: other fields, their order, spacing and escapes.

    Raises:
        GuardError: ``raw`` is not a JSON object with a ``partitions`` object, or a new partition
            key is already there.
    """
    try:
        text = raw.decode("utf-8")
        members = _top_level_members(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise GuardError(f"the topic znode is not a JSON object kzc can extend ({exc}); nothing was written") from None
    spans = [(start, end) for key, start, end in members if key == "partitions"]
    if not spans:
        raise GuardError('the topic znode has no "partitions" object; nothing was written')
    start, end = spans[-1]  # Jackson, like Python, keeps the last of duplicate keys
    original = json.loads(text)
    partitions = original.get("partitions")
    if not isinstance(partitions, dict) or text[start] != "{":
        raise GuardError('"partitions" in the topic znode is not a JSON object; nothing was written')
    clashes = [p for p, _ in new if str(p) in partitions]
    if clashes:
        raise GuardError(f"partitions {clashes} already exist in the topic znode; nothing was written")
    entries = ",".join(f'"{p}":[{",".join(map(str, replicas))}]' for p, replicas in new)
    inner = text[start + 1 : end - 1]
    insertion = entries if not inner.strip() else "," + entries
    updated = text[: end - 1] + insertion + text[end - 1 :]
    # The result must be the original object plus exactly the new keys, nothing else.
    expected = dict(original)
    expected["partitions"] = {**partitions, **{str(p): list(r) for p, r in new}}
    if json.loads(updated) != expected:
        raise GuardError("kzc could not extend the topic znode faithfully; nothing was written")
    return updated.encode("utf-8")


def _top_level_members(text: str) -> list[tuple[str, int, int]]:
    """(key, value start, value end) of every member of the top-level JSON object in ``text``."""
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        match = _WHITESPACE.match(text, i)
        return match.end() if match else i

    i = skip(0)
    if i >= len(text) or text[i] != "{":
        raise ValueError("not a JSON object")
    i = skip(i + 1)
    members: list[tuple[str, int, int]] = []
    if i < len(text) and text[i] == "}":
        return members
    while True:
        if i >= len(text) or text[i] != '"':
            raise ValueError("expected a key")
        key, i = decoder.raw_decode(text, i)
        i = skip(i)
        if i >= len(text) or text[i] != ":":
            raise ValueError("expected ':'")
        start = skip(i + 1)
        _, end = decoder.raw_decode(text, start)
        members.append((str(key), start, end))
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i = skip(i + 1)
            continue
        if i < len(text) and text[i] == "}":
            if skip(i + 1) != len(text):
                raise ValueError("data after the JSON object")
            return members
        raise ValueError("expected ',' or '}'")


def encode_value(value: object) -> bytes:
    """A parsed znode value as the JSON (or text) Kafka writes for it."""
    if isinstance(value, Unreadable):
        return value.raw
    if isinstance(value, int):
        return str(value).encode()
    obj: dict[str, object]
    if isinstance(value, ControllerInfo):
        obj = {"version": value.version, "brokerid": value.broker_id, "timestamp": str(value.timestamp_ms or 0)}
        if value.kraft_controller_epoch is not None:
            obj["kraftControllerEpoch"] = value.kraft_controller_epoch
    elif isinstance(value, ClusterId):
        obj = {"version": value.version, "id": value.id}
    elif isinstance(value, BrokerRegistration):
        obj = {
            "listener_security_protocol_map": dict(value.listener_security_protocol_map or ()),
            "endpoints": [str(e) for e in value.endpoints],
            "jmx_port": value.jmx_port,
            "host": value.host,
            "timestamp": str(value.timestamp_ms or 0),
            "port": value.port,
            "version": value.version,
        }
        if value.rack is not None:
            obj["rack"] = value.rack
        if value.features is not None:
            obj["features"] = {n: {"min_version": a, "max_version": b} for n, a, b in value.features}
    elif isinstance(value, TopicAssignment):
        obj = {
            "partitions": {str(p): list(r) for p, r in value.partitions},
            "adding_replicas": {str(p): list(r) for p, r in value.adding},
            "removing_replicas": {str(p): list(r) for p, r in value.removing},
            "version": value.version,
        }
        if value.topic_id is not None:
            obj["topic_id"] = value.topic_id
    elif isinstance(value, PartitionState):
        obj = {
            "controller_epoch": value.controller_epoch,
            "leader": value.leader,
            "version": value.version,
            "leader_epoch": value.leader_epoch,
            "isr": list(value.isr),
        }
    elif isinstance(value, EntityConfig):
        obj = {"version": value.version, "config": dict(value.config)}
    else:
        return repr(value).encode()
    return json.dumps(obj, separators=(",", ":")).encode()
