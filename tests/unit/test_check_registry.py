"""Every registered check is a whole unit: spec, typed evidence with its sentence, a pass in each engine, a
hand-built test case, a planted fault (or the reason there is none) and a docs paragraph. No JVM needed."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from core.consistency import checks, spark_checks
from core.consistency.catalog import CHECK_IDS, MIGRATION_CHECKS
from core.consistency.checks import REGISTRY, UNITS
from core.consistency.checks.availability import OfflinePartition
from core.consistency.checks.unit import Check, Where
from core.consistency.local_engine import CLUSTER_PASS, PARTITION_PASS
from core.consistency.synthetic import NOT_PLANTABLE, PLANTED_AS
from core.testdata.checks import CASES, MIGRATION_CASES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "checks.md"
SERVED_CASES = {"metadata_mismatch"}  # fired by the served-metadata tests, not by a snapshot alone


def ids(units: tuple[Check, ...]) -> list[str]:
    return [u.id for u in units]


def test_the_registry_is_the_catalog_in_report_order() -> None:
    assert tuple(ids(REGISTRY)) == CHECK_IDS
    assert len(set(CHECK_IDS)) == len(CHECK_IDS)


@pytest.mark.parametrize("unit", REGISTRY, ids=ids(REGISTRY))
def test_each_check_has_its_evidence_record_and_both_rules(unit: Check) -> None:
    assert unit.evidence.check == unit.id
    assert dataclasses.is_dataclass(unit.evidence) and unit.evidence.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert "sentence" in unit.evidence.__dict__, f"{unit.id}: no sentence of its own"
    assert unit.local and all(callable(rule) for rule in unit.local.values())
    assert unit.spark and all(callable(rule) for rule in unit.spark.values())
    # The rules sit side by side in the check's module.
    modules = {rule.__module__ for rule in (*unit.local.values(), *unit.spark.values())}
    assert modules == {unit.evidence.__module__}
    # The engines' pass lists derive from the rules.
    local = {"partitions": PARTITION_PASS, "cluster": CLUSTER_PASS, "migration": MIGRATION_CHECKS}
    assert unit.id in local[unit.local_pass]
    assert all(unit.id in spark_checks.PASSES[p] for p in unit.spark)


@pytest.mark.parametrize("unit", REGISTRY, ids=ids(REGISTRY))
def test_each_check_has_a_test_case_a_planted_fault_and_a_docs_paragraph(unit: Check) -> None:
    fired = set().union(*(expected for _, expected in [*CASES.values(), *MIGRATION_CASES.values()]))
    assert unit.id in fired | SERVED_CASES, f"{unit.id}: no case in core/testdata/checks.py"
    if unit.spec.group != "migration":  # the readiness checks run when asked; the generator plants none
        assert unit.id in set(PLANTED_AS.values()) | set(NOT_PLANTABLE), f"{unit.id}: no fault in synthetic.py"
    assert re.search(rf"^\*\*`{unit.id}`\*\* \[{unit.spec.severity.value}\]", DOCS.read_text(), re.M)


def test_spark_json_is_read_back_into_the_same_record() -> None:
    record = OfflinePartition(leader=-1, isr=(1,), replicas=(1, 2, 3), offline_replicas=())
    as_json = {"leader": -1, "isr": [1], "replicas": [1, 2, 3], "offline_replicas": []}
    assert OfflinePartition.from_json(as_json) == record
    assert record.values() == {"leader": -1, "isr": (1,), "replicas": (1, 2, 3), "offline_replicas": ()}
    with pytest.raises(TypeError):
        OfflinePartition.from_json({**as_json, "leader_id": 1})  # a key the record does not have
    at = Where("/brokers/topics/orders/partitions/0/state", "orders", 0)
    assert record.sentence(at) == "Partition orders-0 is offline: it has no leader (leader -1); ISR [1]."


def test_a_registered_check_names_a_record_of_its_own() -> None:
    empty_isr = UNITS["empty_isr"]
    with pytest.raises(ValueError, match="is for offline_partition"):
        Check(empty_isr.spec, OfflinePartition, empty_isr.local, empty_isr.spark)
    with pytest.raises(ValueError, match="Spark rules need a pass"):
        Check(empty_isr.spec, empty_isr.evidence, empty_isr.local, {})


def test_every_evidence_key_a_spark_rule_builds_is_a_field_of_its_record() -> None:
    # The Spark rules name their record's class and its keys: read them from the source, no JVM needed
    # (``columns.finding`` raises the same when a pass is planned).
    records = {unit.evidence.__name__: unit.evidence for unit in REGISTRY}
    built = set()
    for path in sorted(Path(checks.__file__).parent.glob("*.py")):
        if path.name == "columns.py":
            continue  # the helpers, generic over the record
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "finding":
                first = node.args[0]
                assert isinstance(first, ast.Name) and first.id in records, f"{path.name}:{node.lineno}"
                record = records[first.id]
                keys = {k.arg for k in node.keywords if k.arg is not None}
                assert keys <= record.keys(), f"{path.name}:{node.lineno}: {sorted(keys - record.keys())}"
                built.add(record.check)
    assert built == set(CHECK_IDS)  # every check has a Spark rule that builds its findings
