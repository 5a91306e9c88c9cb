"""Findings and the check report: the one shape both engines produce, and its JSON form.

An engine only decides *that* a check fires and with which evidence record (``core.consistency.checks``);
``make_finding`` fills in the severity from the catalog and the one-sentence detail from the record's
``sentence``, so the local and the Spark engine cannot word the same finding differently. Evidence is
canonical (keys sorted, ``None`` dropped, lists as tuples) so findings compare and hash by value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.consistency.catalog import BY_ID, ORDER, Severity
from core.consistency.checks.unit import Evidence as EvidenceRecord
from core.consistency.checks.unit import Where

EvidenceValue = int | str | bool | tuple[int, ...] | tuple[str, ...]
Evidence = tuple[tuple[str, EvidenceValue], ...]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in a snapshot.

    ``path`` is the znode the problem is in (relative to the Kafka chroot); ``topic``, ``partition`` and
    ``broker`` are ``None`` when they do not apply; ``detail`` is one readable sentence; ``evidence`` holds
    the values the check looked at, as sorted ``(key, value)`` pairs.
    """

    check: str
    severity: Severity
    topic: str | None
    partition: int | None
    broker: int | None
    path: str
    detail: str
    evidence: Evidence

    @property
    def evidence_dict(self) -> dict[str, EvidenceValue]:
        """The evidence as a dict."""
        return dict(self.evidence)

    def sort_key(self) -> tuple[int, int, str, int, int, str, str]:
        """Errors first, then catalog order, topic, partition, broker, path."""
        return (
            self.severity.rank,
            ORDER[self.check],
            self.topic or "",
            -1 if self.partition is None else self.partition,
            -1 if self.broker is None else self.broker,
            self.path,
            repr(self.evidence),
        )

    def to_json(self) -> dict[str, Any]:
        """The finding as in ``kzc check --json``."""
        return {
            "check": self.check,
            "severity": self.severity.value,
            "topic": self.topic,
            "partition": self.partition,
            "broker": self.broker,
            "path": self.path,
            "detail": self.detail,
            "evidence": {k: list(v) if isinstance(v, tuple) else v for k, v in self.evidence},
        }


def canonical_evidence(values: Mapping[str, object]) -> Evidence:
    """``values`` as canonical evidence: ``None`` dropped, sequences as tuples, keys sorted.

    Raises:
        TypeError: a value is not an int, str, bool or a sequence of ints or strs.
    """
    items: list[tuple[str, EvidenceValue]] = []
    for key in sorted(values):
        value = values[key]
        if value is None:
            continue
        if isinstance(value, bool | int | str):
            items.append((key, value))
        elif isinstance(value, list | tuple):
            if not all(isinstance(v, int | str) and not isinstance(v, bool) for v in value):
                raise TypeError(f"evidence {key!r} must hold ints or strs, got {value!r}")
            items.append((key, tuple(value)))
        else:
            raise TypeError(f"evidence {key!r} has unsupported type {type(value).__name__}")
    return tuple(items)


def make_finding(
    record: EvidenceRecord,
    path: str,
    *,
    topic: str | None = None,
    partition: int | None = None,
    broker: int | None = None,
) -> Finding:
    """A finding of ``record``'s check with its catalog severity and the record's sentence as detail.

    Raises:
        KeyError: the record's check is not in the catalog (a programming error).
    """
    spec = BY_ID[record.check]
    return Finding(
        check=record.check,
        severity=spec.severity,
        topic=topic,
        partition=partition,
        broker=broker,
        path=path,
        detail=record.sentence(Where(path, topic, partition, broker)),
        evidence=canonical_evidence(record.values()),
    )


@dataclass(frozen=True, slots=True)
class StageProgress:
    """Progress of one stage: ``done`` of ``total`` units (``total`` 0 when unknown); ``step`` says what the
    stage does now when it has steps of its own (the Spark engine's ``load``: "starting Spark"...)."""

    stage: str
    done: int
    total: int
    finished: bool = False
    step: str = ""


@dataclass(frozen=True)
class CheckReport:
    """The result of one run: findings in report order, what ran, and how long each stage took."""

    findings: tuple[Finding, ...]
    partitions: int
    checks_run: tuple[str, ...]
    engine: str
    timings: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # what was skipped and why (e.g. brokers unreachable)

    @classmethod
    def build(
        cls,
        findings: Iterable[Finding],
        partitions: int,
        checks_run: Sequence[str],
        engine: str,
        timings: Mapping[str, float] | None = None,
        notes: Sequence[str] = (),
    ) -> CheckReport:
        """A report with ``findings`` sorted into report order."""
        return cls(
            findings=tuple(sorted(findings, key=Finding.sort_key)),
            partitions=partitions,
            checks_run=tuple(checks_run),
            engine=engine,
            timings=dict(timings or {}),
            notes=tuple(notes),
        )

    @property
    def duration_s(self) -> float:
        """How long the whole run took (0 when not timed)."""
        return float(self.timings.get("total", 0.0))

    @property
    def has_errors(self) -> bool:
        """Whether any finding has error severity (``kzc check`` then exits with 1)."""
        return any(f.severity is Severity.ERROR for f in self.findings)

    def by_check(self) -> dict[str, int]:
        """How many findings each check produced (checks that ran and found nothing count 0)."""
        counts = Counter(f.check for f in self.findings)
        return {check: counts.get(check, 0) for check in self.checks_run}

    def by_severity(self) -> dict[str, int]:
        """How many findings of each severity."""
        counts = Counter(f.severity.value for f in self.findings)
        return {s.value: counts.get(s.value, 0) for s in Severity}

    def summary(self) -> dict[str, Any]:
        """``{"partitions", "by_check", "by_severity", "engine", "notes"}``."""
        return {
            "partitions": self.partitions,
            "by_check": self.by_check(),
            "by_severity": self.by_severity(),
            "engine": self.engine,
            "notes": list(self.notes),
        }

    def to_json(self) -> dict[str, Any]:
        """``{"findings": [...], "summary": {...}, "timings": {...}}`` as ``kzc check --json`` prints."""
        return {
            "findings": [f.to_json() for f in self.findings],
            "summary": self.summary(),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }
