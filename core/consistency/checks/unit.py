"""What a consistency check is: its spec, its typed evidence record and where it runs.

A check is one unit (``core/consistency/checks/<scope>.py``): its ``CheckSpec``, an ``Evidence``
dataclass whose fields are the JSON keys of its findings' evidence and whose ``sentence`` is the
finding's detail, and the passes that produce it. Both engines build the same record: the local engine
directly (so a wrong key is a type error), the Spark engine from its JSON through ``Evidence.from_json``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self


class Severity(enum.Enum):
    """How bad a finding is; any ``ERROR`` makes ``kzc check`` exit with 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for errors, 1 for warnings, 2 for info: the report's sort order."""
        return _RANKS[self]


_RANKS = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class Subject(enum.Enum):
    """What one finding of a check is about."""

    CLUSTER = "cluster"
    BROKER = "broker"
    TOPIC = "topic"
    PARTITION = "partition"
    ZNODE = "znode"


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One check of the catalog.

    ``rule`` is the Kafka behaviour the check relies on, ``reference`` the section of zk-layout.md that
    describes it. ``needs_brokers`` checks run only when the brokers' metadata was fetched
    (``--bootstrap-server``).
    """

    id: str
    severity: Severity
    subject: Subject
    title: str
    rule: str
    reference: str
    needs_brokers: bool = False
    group: str = "consistency"  # "migration": readiness for a ZooKeeper-to-KRaft migration, run when asked


@dataclass(frozen=True, slots=True)
class Where:
    """Where a finding is: its znode (relative to the Kafka chroot) and the topic, partition, broker it is
    about (``None`` when they do not apply)."""

    path: str
    topic: str | None = None
    partition: int | None = None
    broker: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """The values one finding's check looked at; each check subclasses it, its fields are the JSON keys
    (``None``: absent) and ``check`` names the check."""

    check: ClassVar[str]

    def sentence(self, at: Where) -> str:
        """The finding's detail: one readable sentence."""
        raise NotImplementedError

    def values(self) -> dict[str, object]:
        """The fields that are set, by JSON key."""
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}

    @classmethod
    def keys(cls) -> frozenset[str]:
        """The JSON keys of this evidence."""
        return frozenset(f.name for f in fields(cls))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The record from its JSON form (the Spark engine's evidence): lists become tuples.

        Raises:
            TypeError: a key is not a field of this record, or a field without a default is missing.
        """
        return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})


# The local engine's loops, in the order it runs them, and the progress pass each belongs to: a rule of
# loop "partition" gets a ``facts.PartitionFacts``, "topic" a ``facts.TopicFacts``, "leaders" a
# ``facts.BrokerLeads``, "deletion" a ``facts.QueuedTopic``, the others the run's ``facts.ClusterFacts``
# ("served": with the brokers' metadata).
LOCAL_LOOPS = {
    "name": "partitions", "partition": "partitions", "topic": "partitions", "deletion": "partitions",
    "leaders": "partitions", "requests": "partitions", "served": "partitions", "cluster": "cluster",
    "migration": "migration",
}  # fmt: skip
LOCAL_PASSES = ("partitions", "cluster", "migration")

# The Spark engine's passes, in the order they are started; each is one Spark action. A rule of pass
# "partitions" gets a ``columns.PartitionColumns`` and returns a finding column, "topics" the per-topic
# aggregate's columns, "leaders" the per-broker ones, "deletions" the queued topics'; the others get the
# ``columns.SparkInput`` and return finding rows.
SPARK_PASSES = (
    "partitions", "topics", "leaders", "deletions", "names", "reassignment requests", "cluster", "notifications",
    "unreadable", "served", "migration",
)  # fmt: skip

LocalRule = Callable[[Any], Iterable[tuple[Evidence, Where]]]
SparkRule = Callable[[Any], Any]


@dataclass(frozen=True)
class Check:
    """One registered check: its spec, its evidence record, and its rules: ``local`` (plain Python) by the
    local engine's loop that calls it, ``spark`` (columns) by the Spark pass that plans it."""

    spec: CheckSpec
    evidence: type[Evidence]
    local: Mapping[str, LocalRule]
    spark: Mapping[str, SparkRule]

    def __post_init__(self) -> None:
        if self.evidence.check != self.spec.id:
            raise ValueError(f"{self.spec.id}: evidence {self.evidence.__name__} is for {self.evidence.check}")
        if not self.local or not set(self.local) <= set(LOCAL_LOOPS):
            raise ValueError(f"{self.spec.id}: local rules need a loop of {sorted(LOCAL_LOOPS)}")
        if not self.spark or not set(self.spark) <= set(SPARK_PASSES):
            raise ValueError(f"{self.spec.id}: Spark rules need a pass of {list(SPARK_PASSES)}")

    @property
    def id(self) -> str:
        """The check's stable id."""
        return self.spec.id

    @property
    def local_pass(self) -> str:
        """The local engine's pass after which every finding of this check is known (for progress)."""
        passes = {LOCAL_LOOPS[loop] for loop in self.local}
        return next(p for p in reversed(LOCAL_PASSES) if p in passes)

    @property
    def spark_passes(self) -> tuple[str, ...]:
        """The Spark passes that produce this check, in run order."""
        return tuple(p for p in SPARK_PASSES if p in self.spark)
