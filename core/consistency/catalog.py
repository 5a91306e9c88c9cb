"""The check catalog: every consistency check kzc runs, with its stable id, severity and the Kafka rule.

Ids are stable: scripts filter on them (``kzc check --only``) and ``docs/checks.md`` documents each one.
The checks themselves are units in ``core.consistency.checks`` (spec, evidence, sentence, passes); this
module is their catalog. The order of ``CHECKS`` is the order findings are reported in. Every check has one
severity; a problem is reported under the most specific id only (``docs/checks.md`` lists which id wins
over which).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.consistency.checks import REGISTRY
from core.consistency.checks.unit import CheckSpec, Severity, Subject
from core.errors import UsageError

__all__ = [
    "BY_ID", "CHECKS", "CHECK_IDS", "MIGRATION_CHECKS", "ORDER", "CheckSpec", "Severity", "Subject", "parse_only",
    "selected",
]  # fmt: skip

CHECKS: tuple[CheckSpec, ...] = tuple(unit.spec for unit in REGISTRY)

MIGRATION_CHECKS: tuple[str, ...] = tuple(s.id for s in CHECKS if s.group == "migration")

BY_ID: dict[str, CheckSpec] = {spec.id: spec for spec in CHECKS}
CHECK_IDS: tuple[str, ...] = tuple(spec.id for spec in CHECKS)
ORDER: dict[str, int] = {check_id: index for index, check_id in enumerate(CHECK_IDS)}


def parse_only(text: str | None) -> frozenset[str] | None:
    """The check ids of ``--only id,id`` (``None`` when not given: run every check).

    Raises:
        UsageError: an id is not in the catalog, or the list is empty.
    """
    if text is None:
        return None
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise UsageError("--only needs at least one check id, e.g. --only offline_partition,under_replicated")
    unknown = [i for i in ids if i not in BY_ID]
    if unknown:
        raise UsageError(f"unknown check id(s) {', '.join(unknown)}; known: {', '.join(CHECK_IDS)} (docs/checks.md)")
    return frozenset(ids)


def selected(only: Iterable[str] | None, with_brokers: bool) -> tuple[str, ...]:
    """The ids to run, in catalog order: ``only`` (or all but the migration readiness checks), minus broker
    checks without broker metadata."""
    wanted = set(CHECK_IDS if only is None else only) - (set(MIGRATION_CHECKS) if only is None else set())
    return tuple(s.id for s in CHECKS if s.id in wanted and (with_brokers or not s.needs_brokers))
