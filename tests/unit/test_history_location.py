"""Where a cluster's history lives (``core.history.location``): the command's flag, else the context's
``history``, else ``$KZC_HISTORY``, else a message naming all three; the config key, the console's flags and
``kzc record`` without ``--out`` all go through it. And the console's recording (``core.console.recording``)
on a followed cluster: rows from its snapshots, a final flush at close, a held lock refused."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.main import build_parser
from cli.options import resolve
from core.config import ConnectionSettings, resolve_settings
from core.config_file import load_config
from core.connect import parse_zookeeper
from core.console.recording import ConsoleRecording
from core.errors import ConfigError, UsageError
from core.history.isr import isr_history
from core.history.location import STORE_ENV, history_place, recorded_cluster
from core.history.observations import Window
from core.history.recorder import RecorderSettings
from core.history.store import HistoryStore, StoreError
from core.polling import wait_until
from core.snapshot.model import ClusterSnapshot
from core.testdata.builder import snapshot, state, topic
from core.zookeeper.session import ConnectionState

CONTEXT = ConnectionSettings(context="prod", history="/var/kzc/prod")


@pytest.mark.parametrize(
    ("flag", "settings", "env", "root", "source"),
    [
        ("/flag", CONTEXT, {STORE_ENV: "/env"}, "/flag", "--store"),
        (None, CONTEXT, {STORE_ENV: "/env"}, "/var/kzc/prod", "context 'prod' history"),
        (None, ConnectionSettings(context="prod"), {STORE_ENV: "/env"}, "/env", f"${STORE_ENV}"),
        ("", CONTEXT, {}, "/var/kzc/prod", "context 'prod' history"),
    ],
    ids=["flag-first", "context-before-environment", "environment-last", "empty-flag-is-not-given"],
)
def test_the_store_is_the_flag_else_the_context_else_the_environment(
    flag: str | None, settings: ConnectionSettings, env: dict[str, str], root: str, source: str
) -> None:
    place = history_place(settings, flag, environ=env)
    assert (place.root, place.source, place.require()) == (Path(root), source, Path(root))


def test_no_store_anywhere_is_a_message_naming_all_three_ways() -> None:
    place = history_place(ConnectionSettings(context="prod"), None, "--out", environ={})
    assert place.root is None
    with pytest.raises(UsageError) as raised:
        place.require()
    assert str(raised.value) == (
        "no history store: give --out DIR, set history = \"DIR\" in context 'prod' of the config file "
        f"(docs/configuration.md), or set ${STORE_ENV}"
    )


def test_a_home_relative_store_is_expanded() -> None:
    place = history_place(ConnectionSettings(history="~/kzc-history"), environ={})
    assert place.root == Path.home() / "kzc-history"


def test_a_cluster_is_recorded_under_its_context_else_its_connect_string() -> None:
    assert recorded_cluster(CONTEXT) == "prod"
    assert recorded_cluster(ConnectionSettings(zookeeper=parse_zookeeper("zk1:2181/kafka"))) == "zk1:2181/kafka"


def test_a_context_names_its_history_store_and_whether_the_console_records(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[contexts.prod]\nzookeeper = "zk:2181"\nhistory = "/var/kzc"\nrecord = true\n')
    settings = resolve_settings(load_config(path), context="prod")
    assert (settings.history, settings.record) == ("/var/kzc", True)


@pytest.mark.parametrize(
    ("line", "message"), [("history = 3", "history must be a str"), ('record = "yes"', "record must be a bool")]
)
def test_a_bad_history_setting_is_refused(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[contexts.prod]\nzookeeper = "zk:2181"\n{line}\n')
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_the_consoles_flags_fill_the_settings_the_context_would(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[contexts.prod]\nzookeeper = "zk:2181"\nhistory = "/var/kzc"\n')
    args = build_parser().parse_args(["--config", str(path), "--context", "prod", "--record", "--store", "/tmp/h"])
    settings, _ = resolve(args)
    assert (settings.history, settings.record) == ("/tmp/h", True)
    plain, _ = resolve(build_parser().parse_args(["--config", str(path), "--context", "prod"]))
    assert (plain.history, plain.record) == ("/var/kzc", False)


def test_kzc_record_without_a_store_anywhere_says_the_three_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(STORE_ENV, raising=False)
    path = tmp_path / "config.toml"
    path.write_text('[contexts.prod]\nzookeeper = "127.0.0.1:1"\n')
    args = build_parser().parse_args(["record", "--config", str(path), "--context", "prod"])
    settings, _ = resolve(args)
    with pytest.raises(UsageError, match="no history store: give --out DIR, set history"):
        args.handler(args, settings)


T0 = 1_800_000_000_000


class Followed:
    """The console's backend as recording sees it: a snapshot that changes, and who to tell."""

    def __init__(self, isr: tuple[int, ...]) -> None:
        self.listeners: list[Callable[[], None]] = []
        self.current = self._cluster(isr, T0)
        self.lock = threading.Lock()

    @staticmethod
    def _cluster(isr: tuple[int, ...], read_ms: int) -> ClusterSnapshot:
        entry = topic("a", {0: (1, 2, 3)}, states={0: state(1, isr)})
        return snapshot(brokers=(1, 2, 3), topics=[entry], full_read_ms=read_ms)

    @property
    def state(self) -> ConnectionState:
        return ConnectionState.CONNECTED

    def snapshot(self) -> ClusterSnapshot:
        with self.lock:
            return self.current

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None:
        self.listeners.append(listener)

    def change(self, isr: tuple[int, ...]) -> None:
        with self.lock:
            self.current = self._cluster(isr, T0)
        for listener in self.listeners:
            listener()


def test_the_console_records_what_its_cluster_shows_and_releases_the_store_at_close(tmp_path: Path) -> None:
    followed = Followed((1, 2, 3))
    place = history_place(ConnectionSettings(context="prod", history=str(tmp_path / "h")))
    recording = ConsoleRecording.start(followed, place, RecorderSettings(flush_every_s=0.1, retain_ms=None))
    assert len(followed.listeners) == 1  # the one live model tells the recorder; no session of its own
    store = HistoryStore.open(tmp_path / "h")
    wait_until(lambda: recording.rows_written > 0, timeout=10, what="the first snapshot flushed")
    followed.change((1, 3))

    def outages() -> list[tuple[int, int, int | None]]:
        answer = isr_history(Window.of(store, "prod", T0 - 3_600_000), "a")
        return [(o.partition, o.replica, o.back_ms) for o in answer.outages]

    wait_until(lambda: outages() == [(0, 2, None)], timeout=10, what="the ISR shrink recorded")
    recording.close()
    with store.recording("prod"):  # the lock was released
        pass


def test_a_store_another_recorder_holds_is_refused_with_who_holds_it(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path / "h")
    place = history_place(ConnectionSettings(context="prod", history=str(tmp_path / "h")))
    with store.recording("prod"), pytest.raises(StoreError, match="another kzc record is recording cluster prod"):
        ConsoleRecording.start(Followed((1, 2, 3)), place)
    with store.recording("prod"):  # the refused start left no lock behind
        pass
