"""``kzc report`` (``core.incident``) on a store the test writes: broker 2 down for two minutes, a preferred
election in the audit log; the numbers are ``kzc history``'s, and bad input changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from core.history.isr import isr_history
from core.history.observations import Window
from core.history.store import HistoryStore
from core.history.urp import urp
from core.human_time import utc_text
from core.testdata.history import Outage, write_outage

T0 = 1_764_300_000_000  # 2025-11-28 03:20:00 UTC
LEFT, BACK, END = T0 + 60_000, T0 + 180_000, T0 + 300_000
ELECTED = T0 + 200_000


def _audit_line(ts: int, cluster: str, outcome: str, **extra: Any) -> str:
    when = utc_text(ts).replace(" UTC", "").replace(" ", "T") + "Z"
    return json.dumps({"time": when, "id": "a1", "user": "alice", "host": "bastion", "cluster": cluster,
                       "operation": "elect preferred", "arguments": {"all": True}, "outcome": outcome,
                       "message": "preferred election sent for 1 partition(s)", **extra})  # fmt: skip


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "store"
    assert write_outage(root, "prod", T0) == Outage(T0, LEFT, BACK, END)
    audit = tmp_path / "audit.jsonl"
    lines = [
        _audit_line(ELECTED - 100, "prod (127.0.0.1:2181)", "intent"),
        _audit_line(ELECTED, "prod (127.0.0.1:2181)", "applied", details={"before": [{"topic": "orders"}]}),
        _audit_line(ELECTED, "other (10.0.0.1:2181)", "applied"),
    ]
    audit.write_text("\n".join(lines) + '\n{"time": "2025-11-28T03:2', encoding="utf-8")  # a torn last line
    monkeypatch.setenv("KZC_AUDIT_LOG", str(audit))
    return root


def _report(store: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    until = str(END)
    assert main(["report", "--store", str(store), "--cluster", "prod", "--since", "10m", "--until", until,
                 "--format", "json", *extra]) == 0  # fmt: skip
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_the_report_names_the_broker_down_interval_the_election_and_the_isr_outages(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(store, capsys)
    assert report["brokers_down"] == [
        {"broker": 2, "left_ms": LEFT, "back_ms": BACK, "down_ms": 120_000, "end": "back"}
    ]
    outs = {(o["topic"], o["partition"], o["replica"]): (o["left_ms"], o["back_ms"]) for o in report["out_of_isr"]}
    assert outs == {("orders", 0, 2): (LEFT + 100, BACK + 5_000), ("orders", 1, 2): (LEFT + 100, BACK + 5_000)}
    [action] = report["actions"]
    assert (action["operation"], action["outcome"], action["user"]) == ("elect preferred", "applied", "alice")
    assert action["details"] == {"before": [{"topic": "orders"}]}
    assert any("not JSON" in note for note in report["audit_notes"])
    assert report["worst"]["at_ms"] == LEFT + 100 and report["worst"]["under_replicated"] == 2
    assert "broker 2" in report["worst"]["likely_cause"]
    assert report["at_end"]["healthy"] is True
    texts = [b["text"] for b in report["timeline"]]
    assert any(t.startswith("broker 2 left") for t in texts)
    assert any(t.startswith("broker 2 registered (127.0.0.1:9092, rack r2)") for t in texts)
    assert report["lagging_groups"] is None and "not recorded" in report["lag_note"]


def test_its_numbers_are_those_kzc_history_gives_for_the_window(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(store, capsys)
    window = Window.of(HistoryStore.open(store), "prod", END - 600_000, END)
    by_topic = urp(window, "topic")
    assert report["urp_by_topic"] == by_topic.to_json()["rows"]
    assert report["urp_by_broker"] == urp(window, "broker").to_json()["rows"]
    assert report["under_replicated_minutes"] == round(sum(r.under_replicated_ms for r in by_topic.rows) / 60_000, 3)
    assert report["under_replicated_minutes"] == round(2 * (BACK + 5_000 - LEFT - 100) / 60_000, 3)
    assert report["out_of_isr"] == isr_history(window, None).to_json()["outages"]


def test_a_store_being_recorded_is_read_without_its_lock(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with HistoryStore.open(store).recording("prod"):
        assert _report(store, capsys)["brokers_down"][0]["broker"] == 2


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--until", "yesterday-ish"], "--until: 'yesterday-ish' is not a moment"),
        (["--until", "2999-01-01 00:00"], "is in the future"),
        (["--since", "soon"], "--since:"),
        (["--until", str(T0 - 3_600_000)], "its recording begins at"),
        (["--cluster", "staging"], "the store holds no cluster staging (it holds: prod)"),
    ],
)
def test_bad_input_is_one_clear_line_and_writes_nothing(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    out = tmp_path / "report.md"
    base = ["report", "--store", str(store), "--cluster", "prod", "--until", str(END), "--out", str(out)]
    assert main([*base, *args]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_missing_audit_log_is_said_not_taken_for_no_action(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "none.jsonl"))
    report = _report(store, capsys)
    assert report["actions"] == [] and report["audit_notes"][0].startswith("no audit log at")


def test_the_html_report_is_one_self_contained_file_with_the_timeline(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "incident.html"
    assert main(["report", "--store", str(store), "--cluster", "prod", "--since", "10m", "--until", str(END),
                 "--out", str(out)]) == 0  # fmt: skip
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page
    assert "Timeline" in page and "broker 2 left" in page and "elect preferred" in page
    assert "Wrote the report of cluster prod" in capsys.readouterr().out


def test_the_markdown_report_reads_top_down(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--store", str(store), "--cluster", "prod", "--since", "10m", "--until", str(END)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# Incident report: cluster prod")
    titles = [line for line in text.splitlines() if line.startswith("## ")]
    assert titles[:3] == ["## The window", "## Timeline (bursts of changes, oldest first)", "## Worst moment"]
    assert "| 2 | " in text and "2m 0s" in text


def test_a_window_inside_the_outage_reports_its_start_as_the_worst_and_what_is_still_wrong(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--store", str(store), "--cluster", "prod", "--since", "30s", "--until",
                 str(LEFT + 60_000), "--format", "json"]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["timeline"] == []
    assert report["worst"]["at_ms"] == LEFT + 30_000 and report["worst"]["under_replicated"] == 2
    assert report["brokers_down"] == [{"broker": 2, "left_ms": LEFT, "back_ms": None, "down_ms": 60_000, "end": "open"}]
    assert report["at_end"] == {"at_ms": LEFT + 60_000, "healthy": False, "offline": [],
                                "under_replicated": ["orders-0", "orders-1"], "brokers_down": [2]}  # fmt: skip


def _lag_rows(ts: int, group: str, lags: dict[int, int | None]) -> list[dict[str, Any]]:
    """One tick's ``group_lag`` rows of ``group`` on orders (end offset 1000; None: the leader did not answer)."""
    return [
        {"ts_ms": ts, "seq": p + 1, "group": group, "source": "kafka", "state": "Stable", "topic": "orders",
         "partition": p, "committed": 1000 - (lag or 0), "end_offset": None if lag is None else 1000, "lag": lag,
         "unknown": "broker 2: refused" if lag is None else None}
        for p, lag in lags.items()
    ]  # fmt: skip


def test_the_groups_whose_lag_grew_are_listed_with_the_recorded_numbers(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        *_lag_rows(T0 + 30_000, "billing", {0: 2, 1: 3}),
        *_lag_rows(T0 + 90_000, "billing", {0: 50, 1: None}),  # unknown: left out, not taken for 50
        *_lag_rows(T0 + 150_000, "billing", {0: 70, 1: 50}),
        *_lag_rows(T0 + 270_000, "billing", {0: 5, 1: 3}),
        *_lag_rows(T0 + 30_000, "caught-up", {0: 9}),
        *_lag_rows(T0 + 150_000, "caught-up", {0: 0}),  # its lag only fell: not behind
    ]
    HistoryStore.open(store).append("group_lag", "prod", rows)
    report = _report(store, capsys)
    assert report["lagging_groups"] == [
        {"group": "billing", "first_ms": T0 + 30_000, "first_lag": 5, "max_ms": T0 + 150_000, "max_lag": 120,
         "last_ms": T0 + 270_000, "last_lag": 8, "ticks_unknown": 1}
    ]  # fmt: skip
    assert report["lag_note"] is None
    assert main(["report", "--store", str(store), "--cluster", "prod", "--since", "10m", "--until", str(END)]) == 0
    markdown = capsys.readouterr().out
    assert "## Consumer groups that fell behind" in markdown
    assert f"| billing | 5 ({utc_text(T0 + 30_000)}) | 120 | {utc_text(T0 + 150_000)} |" in markdown


def test_the_worst_moment_and_the_end_are_the_states_read_fresh_at_those_moments(tmp_path: Path) -> None:
    """The report takes both from its own replay of the window (the worst moment a point on the way, the end
    where it stops): they must be what ``state_at`` reads fresh there, judged by the same rules, over windows of
    a day of churn holding a broker leaving and returning, a new controller, a topic created and removed, and
    a gap after which a whole snapshot says what changed in it."""
    from core.audit import read_audit
    from core.history.diff import state_at
    from core.history.moment import snapshot_of
    from core.history.schema import BROKER, CONTROLLER, EVENTS, PARTITION, SNAPSHOTS
    from core.history.store import Gap
    from core.incident.report import build_report
    from core.snapshot.health import assess
    from core.snapshot.likely_cause import likely_cause
    from core.testdata.history import START_MS, churn_rows, write_history

    hour = 3_600_000
    info = write_history(tmp_path / "store", partitions=60, days=1, flaps_per_hour=0.05, snapshot_every_s=7200)
    store = HistoryStore.open(tmp_path / "store")
    cluster, at = info.cluster, START_MS + 5 * hour + 1_234

    store.append(EVENTS, cluster, [{**r, "seq": 10_000_000 + i} for i, r in enumerate(churn_rows(at))])
    gap = Gap(START_MS + 14 * hour + 600_000, START_MS + 14 * hour + 1_800_000, "recorder stopped")
    store.record_gap(cluster, gap)
    # After the gap, a whole snapshot: broker 5 not registered and t00000-0 without a leader, both back 5
    # minutes later (the snapshots after agree with the events).
    found = state_at(store, cluster, gap.to_ms)
    rows: list[dict[str, object]] = [{"ts_ms": gap.to_ms, "kind": CONTROLLER, "broker": 1}]
    rows += [{"ts_ms": gap.to_ms, "kind": BROKER, "broker": b, "rack": rack, "endpoint": endpoint}
             for b, (rack, endpoint) in found.brokers.items() if b != 5]  # fmt: skip
    for (topic, p), (replicas, leader, isr) in found.partitions.items():
        offline = (topic, p) == ("t00000", 0)
        rows.append({"ts_ms": gap.to_ms, "kind": PARTITION, "topic": topic, "partition": p, "leader_epoch": 1,
                     "leader": -1 if offline else leader, "isr": list(isr or ()),
                     "replicas": list(replicas or ())})  # fmt: skip
    store.append(SNAPSHOTS, cluster, [{**r, "seq": i} for i, r in enumerate(rows)])
    replicas, leader, isr = found.partitions[("t00000", 0)]
    rack, endpoint = found.brokers[5]
    back = gap.to_ms + 300_000
    store.append(EVENTS, cluster, [
        {"ts_ms": back, "seq": 20_000_000, "kind": BROKER, "broker": 5, "rack": rack, "endpoint": endpoint},
        {"ts_ms": back, "seq": 20_000_001, "kind": PARTITION, "topic": "t00000", "partition": 0, "leader": leader,
         "leader_epoch": 2, "isr": list(isr or ()), "replicas": list(replicas or ())},
    ])  # fmt: skip
    audit = read_audit(tmp_path / "no-audit.jsonl")
    worst_seen = 0
    for since in [*range(START_MS, START_MS + 23 * hour, hour), at - 1, gap.from_ms + 1, gap.to_ms - 1]:
        report = build_report(store, cluster, since, since + 2 * hour, audit)
        if report.worst is not None:
            worst_seen += 1
            fresh = snapshot_of(state_at(store, cluster, report.worst.at_ms), report.worst.at_ms)
            health, cause = assess(fresh), likely_cause(fresh)
            assert (report.worst.under_replicated, report.worst.offline, report.worst.cause) == (
                len(health.under_replicated),
                len(health.offline),
                cause.text if cause else None,
            ), since
        end = snapshot_of(state_at(store, cluster, report.at_end.at_ms), report.at_end.at_ms)
        health = assess(end)
        holding = {b for _, _, replicas, _ in end.iter_partitions() for b in replicas}
        assert report.at_end.offline == tuple(f"{o.topic}-{o.partition}" for o in health.offline), since
        assert report.at_end.under_replicated == tuple(f"{u.topic}-{u.partition}" for u in health.under_replicated)
        assert report.at_end.brokers_down == tuple(sorted(holding - end.live_broker_ids())), since
    assert worst_seen > 10
