"""The columns the checks' Spark rules read, and how a rule writes a finding (worker process only).

The Spark engine (``core.consistency.spark_checks``) reads the snapshot into DataFrames, derives per
partition the same facts the Python rules read (``core.consistency.checks.facts``) as columns
(``PartitionColumns``, including ``core.snapshot.health.partition_health``), and hands them to each check's
Spark rule. A row rule returns a finding struct (null where the check does not fire) or ``Many`` (an
array of them); a frame rule returns finding rows. Every pyspark import is inside a function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from core.consistency.checks.unit import Evidence
from core.consistency.params import CheckParams
from core.consistency.spark_frames import Frames
from core.kafka.znodes import paths as layout

Col = Any
DataFrame = Any


@dataclass(frozen=True)
class Many:
    """A row rule's array of finding structs (one finding per element)."""

    array: Col


def finding(evidence: type[Evidence], topic: Col, partition: Col, broker: Col, path: Col, **values: Col) -> Col:
    """A finding struct of ``evidence``'s check; ``values`` are columns named by the record's JSON keys (nulls
    are dropped by ``to_json``; ``Evidence.from_json`` reads them back into the record).

    Raises:
        TypeError: a key is not a field of the record (while the pass is planned).
    """
    from pyspark.sql import functions as F

    unknown = set(values) - evidence.keys()
    if unknown:
        raise TypeError(f"{evidence.check}: no evidence key {', '.join(sorted(unknown))}")
    ev = F.to_json(F.struct(*[value.alias(key) for key, value in sorted(values.items())])) if values else F.lit("{}")
    return F.struct(
        F.lit(evidence.check).alias("check"),
        topic.cast("string").alias("topic"),
        partition.cast("int").alias("partition"),
        broker.cast("int").alias("broker"),
        path.cast("string").alias("path"),
        ev.alias("evidence"),
    )


def rows(df: DataFrame, one: Col) -> DataFrame:
    """The finding struct column ``one`` of ``df`` flattened into finding rows."""
    return df.select(one.alias("f")).select("f.*")


def exploded(df: DataFrame, findings: list[Col], arrays: list[Col] | None = None) -> DataFrame:
    """One finding row per non-null struct in ``findings`` and per element of the ``arrays`` of structs."""
    from pyspark.sql import functions as F

    merged = F.filter(F.concat(F.array(*findings), *(arrays or [])), lambda x: x.isNotNull())
    return df.select(F.explode(merged).alias("f")).select("f.*")


def empty(df: DataFrame, evidence: type[Evidence]) -> DataFrame:
    """A finding-shaped DataFrame without rows."""
    from pyspark.sql import functions as F

    return rows(df.limit(0), finding(evidence, F.lit(None), F.lit(None), F.lit(None), F.lit("")))


def union(pieces: list[DataFrame]) -> DataFrame:
    """The finding rows of every piece."""
    result = pieces[0]
    for piece in pieces[1:]:
        result = result.unionByName(piece)
    return result


def ints(values: list[int]) -> Col:
    """A literal array<int> (typed even when empty)."""
    from pyspark.sql import functions as F

    return F.array(*[F.lit(v) for v in values]).cast("array<int>")


def topic_path(topic: Col) -> Col:
    """``/brokers/topics/<t>`` of a topic column."""
    from pyspark.sql import functions as F

    return F.concat(F.lit(f"{layout.TOPICS}/"), topic)


def state_path(topic: Col, partition: Col) -> Col:
    """``/brokers/topics/<t>/partitions/<p>/state`` of topic and partition columns."""
    from pyspark.sql import functions as F

    # The layout's own path with the two names as markers, split around them: null in, null out (as concat).
    head, rest = layout.state_path("\0", "\1").split("\0")
    middle, tail = rest.split("\1")
    return F.concat(F.lit(head), topic, F.lit(middle), partition.cast("string"), F.lit(tail))


def floor_seconds(ms: Col) -> Col:
    """Python's ``ms // 1000`` (floor, also for negative values)."""
    from pyspark.sql import functions as F

    return F.floor(ms / F.lit(1000)).cast("long")


def duplicates_of(replicas: Col) -> Col:
    """The ids ``replicas`` names more than once, sorted."""
    from pyspark.sql import functions as F

    return F.array_sort(
        F.array_distinct(F.filter(replicas, lambda x: F.size(F.filter(replicas, lambda y: y == x)) > 1))
    )


class BrokerLookup:
    """Per-row questions about a broker id. When the registered ids are dense enough (the usual 0..n or
    1001..n) they are answered by indexing a literal int array by the id; otherwise by scanning the list.
    ``array_contains`` on a literal list and a map lookup both scan it, which on a million rows and a few
    hundred brokers costs seconds; ``isin`` compiles into a switch per use, too big for Spark's code
    generation. The table is written as ``split`` of a string literal, which Spark folds into one literal
    array while planning: ``array(lit, lit, ...)`` would be one expression per broker id to analyse."""

    DENSE_SPAN = 1 << 16

    def __init__(self, live: frozenset[int], racks: dict[int, str | None]) -> None:
        self.ids = sorted(live)
        names = sorted({r for b, r in racks.items() if r is not None and b in live})
        self.rack_index = {b: names.index(r) for b, r in racks.items() if r is not None and b in live}
        self.low = self.ids[0] if self.ids else 0
        self.span = self.ids[-1] - self.low + 1 if self.ids else 0
        self.dense = 0 < self.span <= self.DENSE_SPAN

    def _lookup(self, table: list[int], broker: Col) -> Col:
        """``table[broker - low]`` (null when out of range)."""
        from pyspark.sql import functions as F

        array = F.split(F.lit(",".join(map(str, table))), ",").cast("array<int>")
        index = broker - F.lit(self.low)
        return F.when((index >= 0) & (index < len(table)), F.element_at(array, index + 1))

    def live(self, broker: Col) -> Col:
        """Whether ``broker`` is registered (false for null)."""
        from pyspark.sql import functions as F

        if not self.ids:
            return F.lit(False)
        if not self.dense:
            return F.coalesce(F.array_contains(ints(self.ids), broker), F.lit(False))
        flags = [0] * self.span
        for b in self.ids:
            flags[b - self.low] = 1
        return F.coalesce(self._lookup(flags, broker) == 1, F.lit(False))

    def rack(self, broker: Col) -> Col:
        """A number standing for the rack of ``broker``, equal for brokers on the same rack (null: no rack or
        not registered)."""
        from pyspark.sql import functions as F

        if not self.rack_index:
            return F.lit(None).cast("int")
        if not self.dense:
            pairs = [x for b, r in sorted(self.rack_index.items()) for x in (F.lit(b), F.lit(r))]
            return F.try_element_at(F.create_map(*pairs), broker)
        table = [-1] * self.span
        for b, r in self.rack_index.items():
            table[b - self.low] = r
        rack = self._lookup(table, broker)
        return F.when(rack >= 0, rack)


class SparkInput(Protocol):
    """What a frame rule reads: the snapshot's DataFrames, the params, and the partition rows (joined with
    their topic's facts, cached once by the engine) with the lookups they need."""

    frames: Frames
    params: CheckParams
    brokers: BrokerLookup
    p: DataFrame  # partition rows: the snapshot's columns plus live_leader, min_isr, deleting, requested, quiet
    deleting_topics: DataFrame  # topic, deleting_flag: the existing topics queued for deletion
    requested_topics: DataFrame  # topic: topics listed in /admin/reassign_partitions

    def with_problems(self, rows: DataFrame) -> DataFrame:
        """``rows`` with ``offline`` and ``duplicates``, the replica lists findings name."""
        ...


@dataclass(frozen=True)
class PartitionColumns:
    """One partition row's facts as columns (``core.consistency.checks.facts.PartitionFacts``' counterpart);
    ``h_*`` are ``core.snapshot.health.partition_health`` as columns."""

    topic: Col
    partition: Col
    replicas: Col
    adding: Col
    removing: Col
    isr: Col
    leader: Col
    offline: Col  # replicas on brokers that are not alive, first occurrences in order
    duplicates: Col
    tpath: Col
    spath: Col
    state: Col  # "ok", "unreadable" or "missing"
    assigned: Col  # false: a state znode of a partition the assignment does not list
    has_state: Col
    available: Col  # assigned, readable state, topic not being deleted
    nonempty_isr: Col
    leader_live: Col
    preferred: Col
    requested: Col  # the last entry of /admin/reassign_partitions for it, or null
    reassigning: Col
    partition_count: Col
    state_controller_epoch: Col
    controller_epoch: int | None  # /controller_epoch
    h_isr: Col
    h_offline: Col
    h_factor: Col
    h_urp: Col
    h_min_isr: Col
    h_under_min: Col
    h_source: Col
    queued: Col  # true (else null) when the topic is queued for deletion
    inputs: SparkInput
    rack_map: Col | None  # broker -> rack of readable registrations (None: no broker has a rack)
    racks_complete: bool
    rack_count: int
