"""``kzc fleet`` without clusters: the config file read context by context, the rows' order, the duplicate
note, the text table, the deadline against a read that never ends, and the releases ApiVersions dates."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.brokers.capabilities import RELEASE_MARKS, BrokerApis, Capabilities, release_floor
from core.config import ConnectionSettings
from core.config_file import load_config
from core.connect import parse_zookeeper
from core.errors import AuthError, ConfigError, ConnectError
from core.fleet import follow
from core.fleet import read as fleet_read
from core.fleet.follow import FollowingReader
from core.fleet.read import FleetReader, Seen
from core.fleet.row import (
    DEGRADED,
    NO_ANSWER,
    OFFLINE,
    OK,
    UNREACHABLE,
    FleetRow,
    FleetTable,
    mark_duplicates,
    worst_first,
)
from core.interrupt import left_behind, reset
from core.kafka.znodes import Unreadable
from core.kafka.znodes.paths import BROKER_IDS, TOPICS
from core.snapshot import release
from core.snapshot.read_attempt import NO_AUTH
from core.snapshot.release import RELEASE_RETRIES_S, ReleaseAsks, broker_release, cluster_release
from core.testdata import builder
from core.zookeeper.health import EnsembleHealth
from core.zookeeper.kafka_root import NoKafkaCluster


def test_a_broken_context_is_kept_with_its_reason_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'default_context = "typo"\n[contexts.good]\nzookeeper = "zk1:2181/kafka"\n'
        '[contexts.typo]\nzookeper = "zk1:2181"\n'
        '[contexts.secret]\nzookeeper = "zk1:2181"\nzk_auth_file = "/no/such/file"\n'
    )
    with pytest.raises(ConfigError, match="zookeper"):
        load_config(path)
    config = load_config(path, per_context=True)
    assert set(config.contexts) == {"good"}
    assert "unknown key(s) zookeper" in config.broken["typo"]
    assert "cannot read the zk_auth file /no/such/file" in config.broken["secret"]


def _row(context: str, state: str, offline: int = 0, urp: int = 0, cluster_id: str | None = None) -> FleetRow:
    return FleetRow(context, "zk:2181", state, offline=offline, under_replicated=urp, cluster_id=cluster_id)


def test_rows_come_worst_first_then_by_offline_and_under_replicated_partitions() -> None:
    rows = [_row("a", OK), _row("b", DEGRADED, urp=3), _row("c", UNREACHABLE), _row("d", OFFLINE, offline=2),
            _row("e", DEGRADED, urp=9)]  # fmt: skip
    assert [r.context for r in worst_first(rows)] == ["d", "c", "e", "b", "a"]


def test_two_contexts_of_one_cluster_say_so() -> None:
    rows = mark_duplicates(
        [_row("a", OK, cluster_id="X"), _row("b", OK, cluster_id="X"), _row("c", OK, cluster_id="Y")]
    )
    assert rows[0].notes == ("one cluster listed twice: context(s) b reach the same cluster id",)
    assert rows[1].notes == ("one cluster listed twice: context(s) a reach the same cluster id",)
    assert rows[2].notes == ()


def test_the_table_has_one_line_per_row_and_the_reasons_under_it() -> None:
    rows = [FleetRow("hung", "zk:1", NO_ANSWER, reason="why", deadline_s=10.0), _row("ok", OK)]
    lines = FleetTable(rows).lines()
    assert lines[1].startswith("hung     no answer in 10 s")
    assert lines[2].startswith("ok       ok")
    assert lines[3:] == ["", "hung (zk:1):", "  why"]


def test_a_read_that_never_ends_is_no_answer_at_the_deadline_and_the_others_on_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    never = threading.Event()

    def read_row(context: str, settings: ConnectionSettings, *_: object) -> FleetRow:
        if context == "hung":
            never.wait()
        return _row(context, OK)

    monkeypatch.setattr(fleet_read, "read_row", read_row)
    reset()
    settings = ConnectionSettings(zookeeper=parse_zookeeper("zk:2181"))
    reader = FleetReader({"hung": settings, "fine": settings, "broken": "unknown key(s) x"}, 0.5)
    started = time.monotonic()
    rows = reader.read()
    assert time.monotonic() - started < 1.5
    assert [(r.context, r.state_text) for r in rows] == [
        ("broken", "config error"),
        ("hung", "no answer in 0.5 s"),
        ("fine", "ok"),
    ]
    assert "while probing ZooKeeper" in str(rows[1].reason)
    assert left_behind()
    # Read again while the first read still hangs: no second thread behind it, the row stays no answer.
    assert [r.state for r in reader.read()][1] == NO_ANSWER
    assert sum(t.name == "kzc-fleet-hung" for t in threading.enumerate()) == 1
    never.set()
    reset()


@pytest.mark.parametrize(
    ("error", "state"),
    [
        (AuthError("ZooKeeper zk:2181 rejected SASL DIGEST-MD5: check the credentials (AUTH_FAILED)"), "auth failed"),
        (NoKafkaCluster("no Kafka cluster at zk:2181/x"), "wrong chroot"),
        (ConnectError("cannot connect to ZooKeeper zk:2181"), "unreachable"),
        (RuntimeError("a surprise"), "read failed"),
    ],
)
def test_a_failure_to_connect_is_the_row_s_state_and_reason(
    monkeypatch: pytest.MonkeyPatch, error: Exception, state: str
) -> None:
    @contextmanager
    def failing(settings: ConnectionSettings, connect_timeout: float | None = None) -> Iterator[None]:
        raise error
        yield

    monkeypatch.setattr(fleet_read, "probe_ensemble", lambda *a, **k: EnsembleHealth((), (), (), 0))
    monkeypatch.setattr(fleet_read, "open_kafka_session", failing)
    settings = ConnectionSettings(zookeeper=parse_zookeeper("zk:2181"))
    row = fleet_read.read_row("c", settings, 1.0, lambda _: None)
    assert (row.state, row.reason) == (state, str(error) if state != "read failed" else "RuntimeError: a surprise")


def _answer(release: tuple[int, ...]) -> dict[int, tuple[int, int]]:
    """An ApiVersions answer holding every mark up to ``release``: the APIs each release added by then."""
    ranges: dict[int, tuple[int, int]] = {}
    for api, version, marked in RELEASE_MARKS:
        if marked <= release:
            ranges[api.key] = (0, max(version, ranges.get(api.key, (0, 0))[1]))
    return ranges


@pytest.mark.parametrize("release", sorted({r for _, _, r in RELEASE_MARKS}))
def test_every_release_is_dated_exactly_by_its_own_marks(release: tuple[int, ...]) -> None:
    assert release_floor(_answer(release)) == release


def test_a_release_says_where_it_comes_from() -> None:
    snapshot = builder.snapshot(brokers=[builder.broker(1), builder.broker(2), builder.broker(3, version=4)])
    assert str(broker_release(snapshot, 1)) == "2.7+ (from registration)"
    assert cluster_release(snapshot) == "mixed: 2.7+ (1, 2), 0.10.2+ (3), from registration"
    caps = Capabilities((BrokerApis(1, _answer((3, 9))), BrokerApis(2, _answer((3, 9))), BrokerApis(3, None, "x")))
    assert broker_release(snapshot, 1, caps).to_json() == {"release": "3.9", "from": "ApiVersions"}
    assert cluster_release(snapshot, caps) == "mixed: 3.9 (1, 2), 0.10.2+ (3), from ApiVersions and registration"
    one = builder.snapshot(brokers=[1])
    assert cluster_release(one, Capabilities((BrokerApis(1, _answer((3, 9))),))) == "3.9 (from ApiVersions)"
    assert cluster_release(one, say_source=False) == "2.7+"


def test_kzc_fleet_console_refuses_a_command_a_cluster_flag_and_a_file_without_contexts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    empty = tmp_path / "config.toml"
    empty.write_text('theme = "dark"\n')
    assert main(["--fleet", "describe", "--config", str(empty)]) == 2
    assert "--fleet opens the console on every context; it takes no command" in capsys.readouterr().err
    assert main(["--fleet", "--zookeeper", "127.0.0.1:2181", "--config", str(empty)]) == 2
    assert "kzc --fleet reads every context with its own settings: --zookeeper" in capsys.readouterr().err
    assert main(["--fleet", "--config", str(empty)]) == 2
    assert "no context in the config file" in capsys.readouterr().err


def test_the_brokers_are_asked_again_after_3_10_and_30_s_while_one_is_silent_then_on_new_registrations() -> None:
    asks = ReleaseAsks()
    registrations = {b: builder.registration(b) for b in (1, 2)}
    silent = Capabilities((BrokerApis(1, _answer((3, 9))), BrokerApis(2, None, "connection refused")))
    asked = asks.due(registrations)
    assert asked is not None and asks.due(registrations) is None  # asked already
    delays = []
    while (delay := asks.answered(asked, silent)) is not None:
        delays.append(delay)
        assert asks.due(registrations, again=True) == asked
    assert delays == list(RELEASE_RETRIES_S) == [3.0, 10.0, 30.0]
    # A broker that re-registers starts the retries afresh; an answer to the registrations before is dropped.
    restarted = {**registrations, 2: builder.registration(2, rack="r2")}
    newer = asks.due(restarted)
    assert newer is not None and not asks.current(asked) and asks.answered(asked, silent) is None
    assert asks.answered(newer, silent) == 3.0
    everyone = Capabilities((BrokerApis(1, _answer((3, 9))), BrokerApis(2, _answer((3, 9)))))
    assert asks.due(restarted, again=True) == newer and asks.answered(newer, everyone) is None


def test_the_following_reader_asks_only_the_unanswered_brokers_again_and_updates_the_row_s_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot = builder.snapshot(brokers=[1, 2])
    silent = Capabilities((BrokerApis(1, _answer((3, 9))), BrokerApis(2, None, "connection refused")))
    answers = [Capabilities((BrokerApis(1, _answer((3, 9))), BrokerApis(2, _answer((3, 9)))))]  # asked again

    def read_row(context: str, settings: ConnectionSettings, deadline: float, stage: object, seen: Seen) -> FleetRow:
        row = FleetRow(context, "zk:2181", OK, release=cluster_release(snapshot, silent))
        seen(row, snapshot, silent)
        return row

    monkeypatch.setattr(fleet_read, "read_row", read_row)
    monkeypatch.setattr(follow, "read_capabilities", lambda *_: answers.pop(0))
    monkeypatch.setattr(release, "RELEASE_RETRIES_S", (0.0, 0.0, 0.0))  # due at once
    monkeypatch.setattr(follow.ChangeWatch, "arm", lambda watch, reading: watch._armed.set())  # set, none fired
    reader = FollowingReader({"c": ConnectionSettings(zookeeper=parse_zookeeper("zk:2181"))}, 1.0)
    (first,) = reader.read()
    assert first.release == "mixed: 3.9 (1), 2.7+ (2), from ApiVersions and registration"
    (again,) = reader.read()  # nothing changed in ZooKeeper: only the brokers are asked
    assert again.release == "3.9 (from ApiVersions)" and (again.state, again.zookeeper) == (OK, "zk:2181")
    assert (reader.whole_reads["c"], reader.release_asks["c"]) == (1, 1)
    assert reader.read() == [] and reader.release_asks["c"] == 1  # every broker answered: not asked again


def test_a_cluster_whose_brokers_or_topics_cannot_be_listed_is_not_counted_as_empty() -> None:
    snapshot = builder.snapshot(brokers=[1])
    assert fleet_read.uncountable(snapshot) is None
    locked = Unreadable(BROKER_IDS, b"", f"kzc may not read {BROKER_IDS}: {NO_AUTH}; check --zk-auth")
    assert fleet_read.uncountable(dataclasses.replace(snapshot, unreadable=(locked,))) == ("auth failed", locked.reason)
    failed = Unreadable(TOPICS, b"", f"ZooKeeper refused to read {TOPICS}: BadVersionError")
    assert fleet_read.uncountable(dataclasses.replace(snapshot, unreadable=(failed,))) == ("read failed", failed.reason)
    one_topic = Unreadable(f"{TOPICS}/t", b"", f"kzc may not read {TOPICS}/t: {NO_AUTH}; check --zk-auth")
    assert fleet_read.uncountable(dataclasses.replace(snapshot, unreadable=(one_topic,))) is None  # degraded
