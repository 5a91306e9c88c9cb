"""The console's traffic: one sample every tick (``core.traffic.sample``: one ListOffsets and one DescribeLogDirs
per broker, no ZooKeeper request, who leads what from the live snapshot the console already holds), the rates
between the last two (``core.traffic.view.Traffic``), and the last minutes of each topic's and broker's
messages in for the sparklines.

A tick asked for less than ``max_age_s`` after the last one returns that one: the screens that show traffic
share one sample per tick.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from core.config import KafkaSecurity
from core.human_time import age_text
from core.snapshot.model import ClusterSnapshot
from core.traffic.cause import LoadFinding, StoppedProducers, load_findings
from core.traffic.rates import Rate, total, unknown
from core.traffic.sample import TIMEOUT_S, Layout, Sample, read_sample
from core.traffic.view import Row, Traffic

TICK_S = 5.0  # the console samples this long after its previous sample finished
PACE = 3.0  # ... or this many times the previous tick's length, if longer (see ``tui.size_reads.traffic_reads``)
HISTORY_TICKS = 60  # five minutes of ticks behind each sparkline
FIRST_NOTE = "measuring: a rate needs two readings, one tick apart"


@dataclass(frozen=True)
class TickTotals:
    """One tick's messages in per second by topic and by broker (None: unknown), for the sparklines."""

    at_ms: int
    topics: Mapping[str, float | None]
    brokers: Mapping[int, float | None]


@dataclass(frozen=True)
class TrafficView:
    """What the console shows of traffic: the rates of the last tick (None after the first sample only, with
    ``note`` saying so; ``note`` also says when no broker answered; None too in a view's ``sums()``), when its
    later sample was read, and the ticks behind the sparklines, oldest first."""

    traffic: Traffic | None
    at_ms: int
    note: str | None = None
    history: tuple[TickTotals, ...] = ()
    stopped: tuple[LoadFinding, ...] = ()  # topics whose producers stopped and that stayed idle since
    _topics: Mapping[str, tuple[Rate, Rate]] = field(default_factory=dict, compare=False, repr=False)
    _brokers: Mapping[int, tuple[Rate, Rate]] = field(default_factory=dict, compare=False, repr=False)
    _sums_only: bool = field(default=False, repr=False)  # ``sums()``: rated, its ``traffic`` dropped

    @classmethod
    def of(cls, traffic: Traffic | None, at_ms: int, note: str | None, history: tuple[TickTotals, ...]) -> TrafficView:
        """The view, each topic's and broker's rates summed once."""
        topics: dict[str, tuple[Rate, Rate]] = {}
        brokers: dict[int, tuple[Rate, Rate]] = {}
        if traffic is not None:
            topics = {r.topic or "": _pair(r) for r in traffic.topics()}
            brokers = {r.broker: _pair(r) for r in traffic.brokers() if r.broker is not None}
        return cls(traffic, at_ms, note, history, (), MappingProxyType(topics), MappingProxyType(brokers))

    def sums(self) -> TrafficView:
        """This view without its per-partition rates (``traffic``): what a screen that shows only topics' and
        brokers' sums keeps between ticks, its size set by the topics and brokers rather than the partitions
        (``partition`` and ``findings`` need the whole view)."""
        return replace(self, traffic=None, _sums_only=self.rated)

    @property
    def rated(self) -> bool:
        """Whether this tick has rates (False after the first sample only)."""
        return self.traffic is not None or self._sums_only

    def _whole(self, what: str) -> Traffic | None:
        """The per-partition rates (None: no rate yet); a view's ``sums()`` has none to give."""
        if self._sums_only:
            raise ValueError(f"{what} needs the whole view, not its sums")
        return self.traffic

    def window_s(self) -> float | None:
        """The longest window of this tick's rates (None: no rate yet)."""
        if not self.rated:
            return None
        return max((r.window_s for pair in self._topics.values() for r in pair if r.window_s is not None), default=None)

    def footer(self, now_ms: int) -> str:
        """``traffic over 5s, read 3s ago``, or why there is no rate (yet)."""
        if self.note is not None or not self.rated:
            return f"traffic: {self.note or 'not sampled'}"
        window = self.window_s()
        if window is None:
            return f"traffic: ? {self.totals()[0].unknown or 'no topic to measure'}"
        return f"traffic over {age_text(window)}, read {age_text(max(0, now_ms - self.at_ms) / 1000)} ago"

    def findings(self) -> list[LoadFinding]:
        """What the load says (``core.traffic.cause``): skews, disks full within a day, producers stopped."""
        traffic = self._whole("findings")
        return [] if traffic is None else load_findings(traffic) + list(self.stopped)

    def _missing(self) -> tuple[Rate, Rate]:
        why = unknown(self.note or "not sampled")
        return why, why

    def totals(self) -> tuple[Rate, Rate]:
        """The cluster's messages and bytes in per second: the sums over every topic (unknown when one is)."""
        if not self.rated:
            return self._missing()
        rates = list(self._topics.values())
        return total((m for m, _ in rates), "topic"), total((b for _, b in rates), "topic")

    def topic(self, name: str) -> tuple[Rate, Rate]:
        """A topic's messages and bytes in per second (unknown: not in the sample, or why)."""
        if not self.rated:
            return self._missing()
        return self._topics.get(name) or self._absent(f"topic {name} was not in the sample (created since?)")

    def partition(self, topic: str, partition: int) -> tuple[Rate, Rate]:
        """A partition's messages and bytes in per second (unknown: not in the sample, or why)."""
        traffic = self._whole("a partition's rates")
        if traffic is None:
            return self._missing()
        found = traffic.partition((topic, partition))
        return found or self._absent(f"{topic}-{partition} was not in the sample (created since?)")

    def broker(self, broker: int) -> tuple[Rate, Rate]:
        """A broker's messages and bytes in per second as leader (unknown: not registered at the sample)."""
        if not self.rated:
            return self._missing()
        return self._brokers.get(broker) or self._absent(f"broker {broker} was not registered at the sample")

    def topic_history(self, name: str) -> list[float | None]:
        """The topic's messages in per second over the last ticks, oldest first."""
        return [t.topics.get(name) for t in self.history]

    def broker_history(self, broker: int) -> list[float | None]:
        """The broker's messages in per second (as leader) over the last ticks, oldest first."""
        return [t.brokers.get(broker) for t in self.history]

    def tick_totals(self) -> TickTotals:
        """This tick's messages in per second by topic and by broker."""
        return TickTotals(
            self.at_ms,
            MappingProxyType({t: m.per_s for t, (m, _) in self._topics.items()}),
            MappingProxyType({b: m.per_s for b, (m, _) in self._brokers.items()}),
        )

    @staticmethod
    def _absent(why: str) -> tuple[Rate, Rate]:
        return unknown(why), unknown(why)


def _silent(sample: Sample) -> str | None:
    """``? why`` when no broker answered the tick (the same words every tick), else None."""
    reads = list(sample.offsets.values())
    if not reads or any(read.offsets is not None for read in reads):
        return None
    return f"? {reads[0].unknown or 'no broker answered'}"


def _pair(row: Row) -> tuple[Rate, Rate]:
    """A topic's or broker's row as (messages in, bytes in); both always given for those rows."""
    return row.messages_in or unknown("not measured"), row.bytes_in or unknown("not measured")


class TrafficTicker:
    """Samples a cluster when asked (``tick``) and keeps the last sample and the history; thread-safe.

    One tick is in flight at a time (``_ticking``: a caller that comes while one runs waits for it, and shares
    its view when it asked for one as fresh), and ``_lock`` guards only the state a tick commits (the last sample
    and view): no one holds it while the brokers are read, so a slow tick never holds up ``sample`` (the
    recorder's read) and a slow sample never holds up a tick. (``core.console.single_flight`` is a layer above.)"""

    def __init__(
        self,
        security: KafkaSecurity,
        now_ms: Callable[[], int] | None = None,
        read: Callable[[Layout, float, int, KafkaSecurity | None], Sample] = read_sample,
    ) -> None:
        self.security = security
        self._now_ms = now_ms or (lambda: int(time.time() * 1000))
        self._read = read
        self._ticking = threading.Lock()  # held by the tick in flight, during its read: one tick at a time
        self._lock = threading.Lock()  # guards the fields below; never held during a read
        self._layout: tuple[ClusterSnapshot, Layout] | None = None
        self._last: Sample | None = None
        self._view: tuple[float, TrafficView] | None = None  # (monotonic end of the last tick, its view)
        # Touched by the tick in flight only (under ``_ticking``):
        self._stopped = StoppedProducers()  # remembers, tick after tick, the topics that took messages
        self._history: deque[TickTotals] = deque(maxlen=HISTORY_TICKS)

    def tick(self, snapshot: ClusterSnapshot, max_age_s: float = 0.0) -> TrafficView:
        """The rates between the previous sample and one taken now (blocks up to about ``TIMEOUT_S``), unless a
        tick finished less than ``max_age_s`` ago (one in flight is waited for first). Never raises: what a broker
        cannot answer is unknown."""
        with self._ticking:
            fresh = self._fresh(max_age_s)
            return fresh[1] if fresh is not None else self._tick_now(snapshot)

    def _fresh(self, max_age_s: float) -> tuple[Sample, TrafficView] | None:
        """The last tick's sample and view when it finished less than ``max_age_s`` ago."""
        with self._lock:
            if self._view is None or self._last is None or time.monotonic() - self._view[0] >= max_age_s:
                return None
            return self._last, self._view[1]

    def _tick_now(self, snapshot: ClusterSnapshot) -> TrafficView:
        """One tick (the caller holds ``_ticking``): read every broker, then commit the sample and its view."""
        now = self._now_ms()
        sample = self._read(self._layout_of(snapshot), TIMEOUT_S, now, self.security)
        with self._lock:
            before = self._last
        if before is None:
            view = TrafficView.of(None, now, _silent(sample) or FIRST_NOTE, tuple(self._history))
        else:
            traffic = Traffic(before, sample)
            view = TrafficView.of(traffic, now, None, ())
            self._history.append(view.tick_totals())
            stopped = tuple(self._stopped.update(traffic))
            view = replace(view, history=tuple(self._history), stopped=stopped, note=_silent(sample))
        with self._lock:
            self._last, self._view = sample, (time.monotonic(), view)
        return view

    def sample(self, snapshot: ClusterSnapshot, max_age_s: float) -> Sample:
        """A sample for another reader of the same brokers (the console's history recorder): the last tick's
        when it finished less than ``max_age_s`` ago (the screens' ticks serve it, no request more), else one
        taken now that leaves the screens' ticks, rates and sparklines as they are. Never raises."""
        fresh = self._fresh(max_age_s)
        if fresh is not None:
            return fresh[0]
        layout = self._layout_of(snapshot)
        return self._read(layout, TIMEOUT_S, self._now_ms(), self.security)

    def _layout_of(self, snapshot: ClusterSnapshot) -> Layout:
        """Who leads what in ``snapshot`` (computed once per snapshot, outside the lock)."""
        with self._lock:
            known = self._layout
        if known is not None and known[0] is snapshot:
            return known[1]
        layout = Layout.of(snapshot, self.security)
        with self._lock:
            self._layout = (snapshot, layout)
        return layout
