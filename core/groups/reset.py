"""Offset resets with Kafka's rules (``kafka-consumer-groups --reset-offsets``, ConsumerGroupCommand 3.9).

- only a group without active members may be reset: states ``Empty`` and ``Dead``; any other state is
  refused with Kafka's message ``Assignments can only be reset if the group 'G' is inactive, but the
  current state is Stable.``;
- ``--topic T`` means every partition of T, ``--topic T:0,2`` those partitions (Kafka's parsing and
  messages);
- ``--to-earliest`` / ``--to-latest``: the log-start / log-end offset;
- ``--to-offset N`` and ``--shift-by N`` (from the committed offset; refused for a partition without
  one) are clamped into ``[log start, log end]`` with Kafka's warning;
- ``--to-datetime``: Kafka's ``Utils.getDateTime`` format (``yyyy-MM-dd'T'HH:mm:ss.SSS`` with an optional
  zone, UTC without one); the offset is the first at or after that time, or the log end when the
  partition has none (Kafka's "Falling back to latest known offset").

The plan shows old and new offsets and the lag change of every partition; nothing here does I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from core.errors import KafkaRuleError, KzcError, UsageError
from core.groups.lag import partition_lag
from core.kafka.topic_partition import TopicPartition

SCENARIOS = ("to-earliest", "to-latest", "to-offset", "shift-by", "to-datetime")
RESETTABLE_STATES = ("Empty", "Dead")


@dataclass(frozen=True)
class ResetRequest:
    """What the user asked: ``topics`` as typed (``T`` or ``T:0,1``), the scenario and its value.

    ``value``: the offset (``to-offset``), the shift (``shift-by``) or the time as typed (``to-datetime``).
    """

    group: str
    topics: tuple[str, ...]
    scenario: str
    value: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"group", "topics", "scenario", "value"}``."""
        return {"group": self.group, "topics": list(self.topics), "scenario": self.scenario, "value": self.value}


@dataclass(frozen=True, slots=True)
class ResetRow:
    """One partition of the plan: committed offset now and after, the end offset, lag before and after."""

    topic: str
    partition: int
    old: int | None
    new: int
    end: int | None

    @property
    def old_lag(self) -> int | None:
        """The lag now."""
        return partition_lag(self.old, self.end)

    @property
    def new_lag(self) -> int | None:
        """The lag right after the reset (before consumers move)."""
        return partition_lag(self.new, self.end)

    def to_json(self) -> dict[str, Any]:
        """``{"topic", "partition", "old", "new", "end", "old_lag", "new_lag"}``."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "old": self.old,
            "new": self.new,
            "end": self.end,
            "old_lag": self.old_lag,
            "new_lag": self.new_lag,
        }


@dataclass(frozen=True)
class ResetPlan:
    """The offsets a reset would commit, with Kafka's warnings; ``blocked``: why it cannot be applied now."""

    request: ResetRequest
    state: str
    rows: tuple[ResetRow, ...]
    warnings: tuple[str, ...] = ()
    blocked: str | None = None

    @property
    def group(self) -> str:
        """The group being reset."""
        return self.request.group

    @property
    def confirmation(self) -> str:
        """What the user types to confirm: the group name."""
        return self.request.group

    @property
    def offsets(self) -> dict[TopicPartition, int]:
        """The offsets to commit."""
        return {(r.topic, r.partition): r.new for r in self.rows}

    def lag_change(self) -> tuple[int | None, int | None]:
        """Total lag of the reset partitions before and after (``None`` when some end offset is unknown)."""
        before = [r.old_lag for r in self.rows]
        after = [r.new_lag for r in self.rows]
        unknown_end = any(r.end is None for r in self.rows)
        return (
            None if unknown_end else sum(x for x in before if x is not None),
            None if unknown_end else sum(x for x in after if x is not None),
        )

    def to_json(self) -> dict[str, Any]:
        """The plan as ``--json`` prints it (and the audit log records it)."""
        before, after = self.lag_change()
        return {
            "operation": "group reset",
            **self.request.to_json(),
            "state": self.state,
            "partitions": [r.to_json() for r in self.rows],
            "lag_before": before,
            "lag_after": after,
            "warnings": list(self.warnings),
            "blocked": self.blocked,
        }


def check_resettable(group: str, state: str) -> None:
    """Kafka's rule: only an inactive group (``Empty`` or ``Dead``) may be reset.

    Raises:
        KafkaRuleError: with Kafka's message, word for word.
    """
    if state not in RESETTABLE_STATES:
        raise KafkaRuleError(
            f"Assignments can only be reset if the group '{group}' is inactive, but the current state is {state}.",
            "AdminOperationException",
        )


def parse_topic_args(args: Sequence[str]) -> tuple[list[str], list[TopicPartition]]:
    """Split ``--topic`` values into whole topics and explicit partitions, as ConsumerGroupCommand does.

    Raises:
        UsageError: Kafka's message for a malformed ``T:P,...`` or a partition that is not a number.
    """
    whole: list[str] = []
    explicit: list[TopicPartition] = []
    for arg in args:
        if ":" not in arg:
            whole.append(arg)
            continue
        parts = arg.split(":")
        if len(parts) != 2 or not parts[1]:
            raise UsageError(f"Invalid topic arg '{arg}', expected topic name and partitions")
        for text in parts[1].split(","):
            try:
                explicit.append((parts[0], _java_int(text)))
            except ValueError:
                raise UsageError(f"Invalid partition '{text}' specified in topic arg '{arg}''") from None
    return whole, explicit


_DATETIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|[+-]\d{2}(?::?\d{2})?)?")


def parse_datetime(text: str) -> int:
    """Epoch milliseconds of ``text`` with Kafka's ``Utils.getDateTime`` rules.

    ``yyyy-MM-dd'T'HH:mm:ss.SSS`` then an optional zone (``Z``, ``+08``, ``+0800``, ``+08:00``); without
    a zone the time is UTC (Kafka appends ``Z``).

    Raises:
        UsageError: not in that format (Kafka's message for a missing ``T``).
    """
    if len(text.split("T")) < 2:
        raise UsageError("Error parsing timestamp. It does not contain a 'T' according to ISO8601 format")
    found = _DATETIME.fullmatch(text)
    if not found:
        raise UsageError(
            f"Unparseable date: \"{text}\" (expected yyyy-MM-dd'T'HH:mm:ss.SSS, optionally followed by Z or "
            "an offset such as +02:00)"
        )
    year, month, day, hour, minute, second, millis = (int(found.group(i)) for i in range(1, 8))
    zone = found.group(8)
    tz = UTC if zone in (None, "Z") else _zone(zone)
    try:
        when = datetime(year, month, day, hour, minute, second, millis * 1000, tzinfo=tz)
    except ValueError as exc:
        raise UsageError(f'Unparseable date: "{text}" ({exc})') from None
    return int(when.timestamp() * 1000)


def plan_reset(
    request: ResetRequest,
    state: str,
    partitions: Sequence[TopicPartition],
    committed: Mapping[TopicPartition, int | None],
    starts: Mapping[TopicPartition, int | KzcError],
    ends: Mapping[TopicPartition, int | KzcError],
    by_time: Mapping[TopicPartition, int | KzcError] | None = None,
    blocked: str | None = None,
) -> ResetPlan:
    """The new offset of every partition with Kafka's rules (see the module doc).

    ``starts`` / ``ends`` are the log-start and log-end offsets (or why the brokers did not give them);
    ``by_time`` the offsets for ``--to-datetime`` (``-1``: no message at or after that time).

    Raises:
        KafkaRuleError: the group is active (Kafka's message).
        UsageError: ``--shift-by`` on a partition without a committed offset, a bad number.
        KzcError: an offset the scenario needs could not be read (Kafka's message).
    """
    check_resettable(request.group, state)
    warnings: list[str] = []
    rows: list[ResetRow] = []
    for key in partitions:
        name = f"{key[0]}-{key[1]}"
        end = ends.get(key)
        end_value = end if isinstance(end, int) else None
        if request.scenario == "to-earliest":
            new = _needed(starts.get(key), f"Error getting starting offset of topic partition: {name}")
        elif request.scenario == "to-latest":
            new = _needed(end, f"Error getting ending offset of topic partition: {name}")
        elif request.scenario == "to-offset":
            new = _clamped(key, _option_long("to-offset", request.value), starts, ends, warnings)
        elif request.scenario == "shift-by":
            current = committed.get(key)
            if current is None:
                raise UsageError(f"Cannot shift offset for partition {name} since there is no current committed offset")
            new = _clamped(key, current + _option_long("shift-by", request.value), starts, ends, warnings)
        elif request.scenario == "to-datetime":
            found = (by_time or {}).get(key)
            if isinstance(found, int) and found < 0:
                warnings.append(
                    f"Partition {key[1]} from topic {key[0]} is empty. Falling back to latest known offset."
                )
                found = end
            new = _needed(found, f"Error getting offset by timestamp of topic partition: {name}")
        else:
            raise UsageError(f"unknown reset scenario '{request.scenario}': one of {', '.join(SCENARIOS)}")
        rows.append(ResetRow(key[0], key[1], committed.get(key), new, end_value))
    return ResetPlan(request, state, tuple(rows), tuple(warnings), blocked)


def _clamped(
    key: TopicPartition,
    offset: int,
    starts: Mapping[TopicPartition, int | KzcError],
    ends: Mapping[TopicPartition, int | KzcError],
    warnings: list[str],
) -> int:
    """ConsumerGroupCommand.checkOffsetsRange: into [log start, log end], with Kafka's warnings."""
    name = f"{key[0]}-{key[1]}"
    end, start = ends.get(key), starts.get(key)
    if end is None:
        raise KzcError(f"Unexpected non-existing offset value for topic partition {name}")
    if isinstance(end, int) and offset > end:
        warnings.append(
            f"New offset ({offset}) is higher than latest offset for topic partition {name}. Value will be set to {end}"
        )
        return end
    if isinstance(start, int) and offset < start:
        warnings.append(
            f"New offset ({offset}) is lower than earliest offset for topic partition {name}. "
            f"Value will be set to {start}"
        )
        return start
    return offset


def _needed(value: int | KzcError | None, message: str) -> int:
    if isinstance(value, int) and value >= 0:
        return value
    cause = f" ({value})" if isinstance(value, KzcError) else ""
    raise KzcError(message + cause)


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _option_long(option: str, text: str | None) -> int:
    """A joptsimple ``Long`` option value (``--to-offset``, ``--shift-by``)."""
    if text is None:
        raise UsageError(f"Option {option} requires an argument")
    try:
        value = _java_int(text)
    except ValueError:
        raise UsageError(f"Cannot parse argument '{text}' of option {option}") from None
    if not _LONG_MIN <= value <= _LONG_MAX:
        raise UsageError(f"Cannot parse argument '{text}' of option {option}")
    return value


def _java_int(text: str) -> int:
    """Java's ``parseInt``/``parseLong`` accepted forms: optional sign, ASCII digits only."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(text)
    return int(text)


def _zone(text: str) -> timezone:
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))
