"""``kzc --at TIME`` refuses bad input before anything opens: one clear line, exit 2 (``cli.console_cmd``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.console_cmd import moment_backend
from cli.main import main
from core.config import ConnectionSettings
from core.errors import UsageError
from core.history.store import Gap, HistoryStore
from core.testdata.history import write_outage

T0 = 1_764_300_000_000  # 2025-11-28 03:20:00 UTC
NOW = T0 + 3_600_000


@pytest.fixture
def store(tmp_path: Path) -> Path:
    (tmp_path / "kzc-config.toml").write_text('[contexts.prod]\nzookeeper = "127.0.0.1:2181"\n')  # $KZC_CONFIG
    write_outage(tmp_path / "store", "prod", T0)
    return tmp_path / "store"


def test_a_moment_inside_the_recording_opens_on_the_contexts_cluster(store: Path) -> None:
    backend = moment_backend(ConnectionSettings(context="prod"), "2025-11-28 03:22", str(store), NOW)
    assert (backend.cluster, backend.moment.at_ms, backend.read_only) == ("prod", T0 + 120_000, True)
    assert moment_backend(ConnectionSettings(), "-58m", str(store), NOW).moment.at_ms == T0 + 120_000  # its only one


@pytest.mark.parametrize(
    ("at", "said"),
    [
        ("soon", "--at: 'soon' is not a moment"),
        ("2099-01-01 00:00", "--at 2099-01-01 00:00 is in the future"),
        ("2025-11-28 03:00", "2025-11-28 03:00:00 UTC is before the recording of cluster prod begins"),
    ],
)
def test_a_bad_time_is_one_line_and_exit_2(store: Path, capsys: pytest.CaptureFixture[str], at: str, said: str) -> None:
    assert main(["--at", at, "--store", str(store), "--context", "prod"]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_a_missing_an_empty_and_another_clusters_store_are_refused(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    HistoryStore.create(empty)
    cases = [
        ([str(tmp_path / "nowhere")], "is not a kzc history store"),
        ([str(empty)], "holds no cluster: record one with kzc record"),
        ([str(store), "--zookeeper", "10.0.0.1:2181"], "holds no recording of cluster 10.0.0.1:2181 (it holds: prod)"),
    ]
    for args, said in cases:
        assert main(["--at", "-5m", "--store", *args]) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1


def test_at_takes_no_command(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--at", "-5m", "--store", str(store), "describe"]) == 2
    assert "--at opens the console at a recorded moment" in capsys.readouterr().err


def test_a_moment_in_a_recorded_gap_shows_no_cluster_and_says_so(store: Path) -> None:
    HistoryStore.open(store).record_gap("prod", Gap(T0 + 200_000, T0 + 260_000, "kzc record was not running"))
    backend = moment_backend(ConnectionSettings(context="prod"), str(T0 + 230_000), str(store), NOW)
    backend.connect()
    assert backend.moment.marker() == (
        "as of 03:23:50: in a gap of the recording (2025-11-28 03:23:20 UTC to 2025-11-28 03:24:20 UTC: kzc record "
        "was not running), nothing known"
    )
    snapshot = backend.snapshot()
    assert not snapshot.brokers and not snapshot.topics
    with pytest.raises(UsageError, match="no recorded change after"):
        backend.step(1)
    assert backend.moment.at_ms == T0 + 230_000


def test_a_store_being_recorded_opens_and_steps_without_its_lock(store: Path) -> None:
    with HistoryStore.open(store).recording("prod"):  # a running kzc record holds it
        backend = moment_backend(ConnectionSettings(context="prod"), str(T0 + 90_000), str(store), NOW)
        backend.connect()
        assert 2 not in backend.snapshot().brokers  # broker 2 is down a minute in
        backend.step(1)
        backend.prefetch()
        assert backend.moment.known
