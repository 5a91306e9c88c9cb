"""What the load says, with its numbers (pure): the findings ``kzc traffic`` prints under its table.

- **leader skew** (``leader_skew``): one broker, as leader, takes at least ``SKEW_SHARE`` of the cluster's
  bytes in while at least two brokers lead partitions: its disks and network carry most of the writes
  (``kafka-leader-election`` / a reassignment of leadership evens it out);
- **key skew** (``key_skew``): one partition takes at least ``SKEW_SHARE`` of its topic's messages in, in a
  topic of at least two partitions: the producers' keys (or an explicit partition) send most messages to it,
  so one leader and one consumer carry that topic. Not for Kafka's internal topics: a group's offsets (a
  transaction's state) all go to the one partition its id hashes to, so with few groups one partition takes them
  all by Kafka's design, not by anyone's keys;
- **disk full within a day** (``disk_full``): a log dir whose free space lasts less than ``FULL_WITHIN_S`` at its
  growth over the window (Kafka 3.3+, which reports free space);
- **producers stopped** (``stopped``, ``StoppedProducers``): a topic that took messages in a window and none
  in the windows since; it holds while the topic stays idle, saying since when, and ends when messages come in
  again, the topic is deleted or its rate turns unknown (the console's ticker and ``--follow`` remember the
  windows; a single window cannot tell "stopped" from "always idle").

A figure that is unknown never makes a finding: the sums it would need are unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.human_time import age_text, clock_text
from core.kafka.names import is_internal
from core.traffic.view import Row, Traffic

SKEW_SHARE = 0.8
FULL_WITHIN_S = 86_400.0
MIN_RATE = 1.0  # per second: below it a share says nothing (a few test messages)


@dataclass(frozen=True)
class LoadFinding:
    """One finding: ``kind`` (``leader_skew``, ``key_skew``, ``disk_full``, ``stopped``), what it is about
    (``subject``: a broker id, ``topic-partition``, ``BROKER:PATH`` or a topic), its sentence and numbers."""

    kind: str
    subject: str
    text: str
    numbers: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """As ``kzc traffic --json`` lists it under ``load``."""
        return {"kind": self.kind, "subject": self.subject, "text": self.text, **self.numbers}


def load_findings(traffic: Traffic) -> list[LoadFinding]:
    """Every finding of ``traffic`` alone (stopped producers need the windows before: ``StoppedProducers``)."""
    return _leader_skew(traffic.brokers()) + _key_skew(traffic) + _disk_full(traffic.log_dirs())


def _per_s(row: Row, what: str) -> float | None:
    rate = row.messages_in if what == "messages" else row.bytes_in
    return None if rate is None else rate.per_s


def _leader_skew(brokers: list[Row]) -> list[LoadFinding]:
    values = [(row.broker, _per_s(row, "bytes")) for row in brokers if row.extra.get("leads")]
    if len(values) < 2 or any(v is None for _, v in values):
        return []
    total = sum(v or 0.0 for _, v in values)
    broker, top = max(values, key=lambda item: item[1] or 0.0)
    if total < MIN_RATE or top is None or top < SKEW_SHARE * total:
        return []
    share = top / total
    text = (
        f"leader skew: broker {broker} takes {share:.0%} of the bytes in as leader ({top:,.0f} of {total:,.0f} "
        f"bytes/s over {len(values)} leaders)"
    )
    return [LoadFinding("leader_skew", str(broker), text, {"share": round(share, 3), "bytes_in_per_s": top})]


def _key_skew(traffic: Traffic) -> list[LoadFinding]:
    by_topic: dict[str, list[Row]] = {}
    for row in traffic.partitions():
        by_topic.setdefault(row.topic or "", []).append(row)
    found = []
    for topic, rows in sorted(by_topic.items()):
        values = [_per_s(r, "messages") for r in rows]
        if len(rows) < 2 or is_internal(topic) or any(v is None for v in values):
            continue
        total = sum(v or 0.0 for v in values)
        top_row = max(rows, key=lambda r: _per_s(r, "messages") or 0.0)
        top = _per_s(top_row, "messages") or 0.0
        if total < MIN_RATE or top < SKEW_SHARE * total:
            continue
        name = f"{topic}-{top_row.partition}"
        share = top / total
        text = (
            f"key skew: {name} takes {share:.0%} of {topic}'s messages in ({top:,.1f} of {total:,.1f}/s over "
            f"{len(rows)} partitions)"
        )
        found.append(LoadFinding("key_skew", name, text, {"share": round(share, 3), "messages_in_per_s": top}))
    return found


def _disk_full(dirs: list[Row]) -> list[LoadFinding]:
    found = []
    for row in dirs:
        seconds = row.extra.get("full_in_s")
        if seconds is None or seconds >= FULL_WITHIN_S:
            continue
        subject = f"{row.broker}:{row.log_dir}"
        growth = row.extra.get("growth_bytes_per_hour") or 0.0
        text = (
            f"disk full within a day: broker {row.broker}'s log dir {row.log_dir} is full in {age_text(seconds)} at "
            f"{growth:,.0f} bytes/hour ({row.extra.get('usable_bytes'):,} bytes free)"
        )
        found.append(LoadFinding("disk_full", subject, text, {"full_in_s": seconds, "growth_bytes_per_hour": growth}))
    return found


@dataclass(frozen=True)
class _Took:
    """A topic's rate in the last window in which it took messages, and when it stopped (the start of its
    first idle window; None while it takes messages)."""

    per_s: float
    stopped_ms: int | None = None


class StoppedProducers:
    """The ``stopped`` findings of window after window (``update`` once per window, in order). It remembers only
    the topics that took at least ``MIN_RATE`` messages/s in their last window with messages and have been idle
    since (or are active now): a deleted topic, one whose rate turns unknown or one taking messages below that
    rate is forgotten. Not thread-safe (the ticker calls it under its lock)."""

    def __init__(self) -> None:
        self._topics: dict[str, _Took] = {}

    def update(self, traffic: Traffic) -> list[LoadFinding]:
        """The topics of ``traffic`` whose producers stopped and that have been idle since, oldest stop first."""
        kept: dict[str, _Took] = {}
        found = []
        for row in traffic.topics():
            topic, rate = row.topic or "", row.messages_in
            if rate is None or rate.per_s is None:
                continue  # unknown: never a made-up "stopped"
            was = self._topics.get(topic)
            if rate.per_s >= MIN_RATE:
                kept[topic] = _Took(rate.per_s)
            elif rate.idle and was is not None:
                now = rate.read_ms or 0
                if was.stopped_ms is None:
                    was = replace(was, stopped_ms=now - int((rate.window_s or 0.0) * 1000))
                kept[topic] = was
                found.append(_stopped(topic, was, now))
        self._topics = kept
        return sorted(found, key=lambda f: (f.numbers["stopped_at_ms"], f.subject))


def _stopped(topic: str, took: _Took, now_ms: int) -> LoadFinding:
    since = took.stopped_ms or 0
    idle_s = max(0, now_ms - since) / 1000
    text = (
        f"producers stopped: {topic} took {took.per_s:,.1f} messages/s until {clock_text(since)} and none since "
        f"({age_text(idle_s)})"
    )
    numbers = {"messages_in_per_s_before": took.per_s, "stopped_at_ms": since, "idle_s": idle_s}
    return LoadFinding("stopped", topic, text, numbers)


@dataclass(frozen=True)
class BrokerLoad:
    """One broker's load over a window (``kzc broker ID --traffic``): its row as leader, its share of the
    cluster's bytes in (None when a sum is unknown), its log dirs' rows, and the findings about it."""

    broker: Row
    share_of_bytes_in: float | None
    log_dirs: tuple[Row, ...]
    findings: tuple[LoadFinding, ...]
    stopped_from: str | None = None  # the windows the stopped producers were looked for over (None: not looked)

    def to_json(self) -> dict[str, Any]:
        """As ``kzc broker ID --traffic W --json`` prints it under ``traffic``."""
        return {
            **self.broker.to_json(),
            "share_of_bytes_in": None if self.share_of_bytes_in is None else round(self.share_of_bytes_in, 3),
            "log_dirs": [r.to_json() for r in self.log_dirs],
            "load": [f.to_json() for f in self.findings],
            "stopped_from": self.stopped_from,
        }


def broker_load(
    traffic: Traffic, broker: int, stopped: Sequence[LoadFinding] = (), stopped_from: str | None = None
) -> BrokerLoad:
    """``broker``'s load in ``traffic`` (a traffic of every topic: the share is of the whole cluster), with the
    ``stopped`` findings (``StoppedProducers`` over ``stopped_from``: the windows up to ``traffic``'s) of the
    topics it leads a partition of."""
    rows = traffic.brokers()
    mine = next((r for r in rows if r.broker == broker), None) or Row(broker=broker, extra={"leads": 0})
    values = [_per_s(r, "bytes") for r in rows]
    known = [v for v in values if v is not None]
    total = sum(known)
    mine_bytes = _per_s(mine, "bytes")
    share = mine_bytes / total if mine_bytes is not None and len(known) == len(values) and total > 0 else None
    led_keys = [key for key, leader in traffic.after.layout.leaders.items() if leader == broker]
    led, led_topics = {f"{t}-{p}" for t, p in led_keys}, {t for t, _ in led_keys}
    about = tuple(
        f
        for f in load_findings(traffic)
        if (f.kind == "leader_skew" and f.subject == str(broker))
        or (f.kind == "disk_full" and f.subject.startswith(f"{broker}:"))
        or (f.kind == "key_skew" and f.subject in led)
    ) + tuple(f for f in stopped if f.kind == "stopped" and f.subject in led_topics)
    dirs = tuple(r for r in traffic.log_dirs() if r.broker == broker)
    return BrokerLoad(mine, share, dirs, about, stopped_from)
