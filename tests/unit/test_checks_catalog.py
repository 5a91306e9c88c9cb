"""The catalog against its documentation, and what a run does when ``--only`` asks for a check it cannot run.

``docs/checks.md`` documents every check with its severity and the sections of zk-layout.md it relies on;
the catalog (``core.consistency.catalog``) carries the same: they must agree, id for id.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.config import ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.consistency import pipeline
from core.consistency.catalog import CHECKS, CheckSpec, parse_only
from core.consistency.params import CheckParams
from core.consistency.pipeline import LocalEngine, run_checks
from core.errors import ConnectError, KzcError, UsageError
from core.testdata.checks import healthy

DOCS = Path(__file__).resolve().parents[2] / "docs" / "checks.md"


def documented() -> dict[str, tuple[str, set[str]]]:
    """check id -> (severity, § references) of each check's paragraph in docs/checks.md."""
    found = {}
    for block in DOCS.read_text(encoding="utf-8").split("\n\n"):
        match = re.match(r"\*\*`(\w+)`\*\* \[(\w+)\]", block.strip())
        if match:
            found[match.group(1)] = (match.group(2), set(re.findall(r"§(\d+(?:\.\d+)?)", block)))
    return found


@pytest.mark.parametrize("spec", CHECKS, ids=[s.id for s in CHECKS])
def test_each_check_is_documented_with_its_severity_and_kafka_rule(spec: CheckSpec) -> None:
    docs = documented()
    assert spec.id in docs, f"{spec.id} is not documented in docs/checks.md"
    severity, references = docs[spec.id]
    assert severity == spec.severity.value
    assert references == set(re.findall(r"§(\d+(?:\.\d+)?)", spec.reference)), spec.reference


def test_the_docs_document_no_check_outside_the_catalog() -> None:
    assert set(documented()) == {s.id for s in CHECKS}


def settings(bootstrap: str | None) -> ConnectionSettings:
    return ConnectionSettings(
        zookeeper=parse_zookeeper("127.0.0.1:2181"),
        bootstrap_servers=parse_bootstrap(bootstrap) if bootstrap else None,
    )


def test_only_metadata_mismatch_needs_brokers_to_compare_with(tmp_path: Path) -> None:
    only = parse_only("metadata_mismatch")
    with pytest.raises(UsageError, match="metadata_mismatch needs --bootstrap-server"):
        run_checks(LocalEngine(), settings=settings(None), only=only)
    with pytest.raises(UsageError, match="cannot run on a snapshot file"):
        run_checks(LocalEngine(), settings=settings("127.0.0.1:9092"), snapshot_file=tmp_path / "x", only=only)


def test_unreachable_brokers_are_a_note_unless_only_names_metadata_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable(_servers: object, **_options: object) -> object:
        raise ConnectError("cannot read metadata from Kafka brokers 127.0.0.1:1: timed out")

    monkeypatch.setattr(pipeline, "take_snapshot", lambda _settings, _progress: healthy())
    monkeypatch.setattr(pipeline, "fetch_served_metadata", unreachable)
    report = run_checks(LocalEngine(), settings=settings("127.0.0.1:1"))
    assert report.findings == () and "metadata_mismatch" not in report.checks_run
    assert report.notes == (
        "metadata_mismatch skipped: cannot read metadata from Kafka brokers 127.0.0.1:1: timed out",
    )
    with pytest.raises(KzcError, match="metadata_mismatch could not run: cannot read metadata"):
        run_checks(LocalEngine(), settings=settings("127.0.0.1:1"), only=parse_only("metadata_mismatch,no_controller"))


def test_brokers_that_serve_no_metadata_are_not_each_asked_for_their_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no broker answering, asking each registered broker for min.insync.replicas would wait out a timeout
    per broker (30 s on three): the static value is unread, with the reason, and nothing is asked."""

    def unreachable(_servers: object, **_options: object) -> object:
        raise ConnectError("cannot read metadata from Kafka brokers 127.0.0.1:1: timed out")

    def asked(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("a broker was asked for its config")

    captured: list[CheckParams] = []
    engine = LocalEngine()
    check = engine.check
    monkeypatch.setattr(pipeline, "take_snapshot", lambda _settings, _progress: healthy())
    monkeypatch.setattr(pipeline, "fetch_served_metadata", unreachable)
    monkeypatch.setattr(pipeline, "read_static_min_isr", asked)

    def recorded(data: object, params: CheckParams, *rest: object) -> object:
        captured.append(params)
        return check(data, params, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "check", recorded)
    run_checks(engine, settings=settings("127.0.0.1:1"))
    assert captured[0].static_min_isr_reason == (
        "the static min.insync.replicas could not be read through --bootstrap-server: "
        "cannot read metadata from Kafka brokers 127.0.0.1:1: timed out"
    )
