"""``kzc fleet`` over a config file of real clusters: the session sandbox (healthy, and listed twice), a 2-broker
sandbox whose broker 2 is killed, a standalone ZooKeeper that is SIGSTOP-ed (it accepts connections and never
answers), and the bad inputs of the issue: ZooKeeper refusing, a chroot without Kafka, a chroot with Kafka's
znodes but no broker, a typo'd key, an unreadable secret file, a SASL password ZooKeeper rejects. Each is one
row with its reason; the hung one is ``no answer in N s`` at the deadline while the others arrive on time."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from kazoo.security import OPEN_ACL_UNSAFE, make_digest_acl

from cli.main import main
from core.config_file import load_config
from core.fleet.follow import FollowingReader
from core.fleet.read import FleetReader
from core.fleet.row import FleetRow
from core.kafka.znodes.paths import BROKER_IDS, state_path
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.terminal_tools import KZC, new_tmux
from tests.integration.test_checks_cluster import broker, healthy_tree, write
from tests.integration.zk_server import SASL_USER, free_port, standalone_zookeeper, zk_client

DEADLINE_S = 8.0
WRONG_PASSWORD = "not-the-kzc-secret"


@pytest.fixture(scope="module")
def sick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A 2-broker sandbox: ``fleet-rf2`` (2 partitions on brokers 1 and 2) and ``fleet-rf1`` (on broker 2 only),
    then broker 2 killed: 2 under-replicated partitions and 1 offline."""
    box = Sandbox.up(tmp_path_factory.mktemp("fleet-sick"), brokers=2, timeout=240)
    try:
        zookeeper = box.info().zookeeper
        for topic, assignment in (("fleet-rf2", "1:2,2:1"), ("fleet-rf1", "2")):
            code = main(["topic", "create", topic, "--replica-assignment", assignment, "--yes", "--wait",
                         "--zookeeper", zookeeper])  # fmt: skip
            assert code == 0
        box.kill_broker(2)
        with zk_client(zookeeper) as zk:

            def noticed() -> bool:
                state = json.loads(zk.get(state_path("fleet-rf1", 0))[0])
                return "2" not in zk.get_children(BROKER_IDS) and state["leader"] == -1

            wait_until(noticed, 60, "broker 2's registration gone and fleet-rf1 offline")
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


@pytest.fixture(scope="module")
def stopped_zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A standalone ZooKeeper, SIGSTOP-ed (continued again before it is stopped); yields its port."""
    workdir = tmp_path_factory.mktemp("fleet-hung-zk")
    with standalone_zookeeper(workdir) as port:
        pid = _pid_listening(port)
        os.kill(pid, signal.SIGSTOP)
        try:
            yield port
        finally:
            os.kill(pid, signal.SIGCONT)


def _pid_listening(port: int) -> int:
    """The pid of the java process whose command line names the standalone ZooKeeper's config of ``port``."""
    found = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return int(found.split("pid=", 1)[1].split(",", 1)[0])


@pytest.fixture(scope="module")
def config(
    sandbox: Sandbox,
    sick: Sandbox,
    stopped_zookeeper: int,
    sasl_zookeeper: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:
    """The fleet's config file, and the chroots it names on the session sandbox's ZooKeeper."""
    info = sandbox.info()
    hosts = info.zookeeper.rsplit("/", 1)[0]
    with zk_client(hosts) as root:
        root.create("/fleet-not-kafka/app", b"{}", makepath=True)
        for path in ("/fleet-no-brokers/brokers/ids", "/fleet-no-brokers/brokers/topics"):
            root.create(path, b"", makepath=True)
    directory = tmp_path_factory.mktemp("fleet-config")
    unreadable = directory / "secret"  # a directory: unreadable as a file, even to root (chmod 000 is not)
    unreadable.mkdir()
    wrong = directory / "zk-sasl-password"
    wrong.write_text(WRONG_PASSWORD)
    wrong.chmod(0o600)
    path = directory / "config.toml"
    path.write_text(
        f"""
[contexts.healthy]
zookeeper = "{info.zookeeper}"
bootstrap_server = "{info.bootstrap_servers}"
[contexts.healthy-again]
zookeeper = "{info.zookeeper}"
[contexts.sick]
zookeeper = "{sick.info().zookeeper}"
[contexts.hung]
zookeeper = "127.0.0.1:{stopped_zookeeper}/kafka"
zk_admin_port = {free_port()}
[contexts.down]
zookeeper = "127.0.0.1:{free_port()}/kafka"
[contexts.not-kafka]
zookeeper = "{hosts}/fleet-not-kafka"
[contexts.no-brokers]
zookeeper = "{hosts}/fleet-no-brokers"
[contexts.typo]
zookeper = "{info.zookeeper}"
[contexts.secret]
zookeeper = "{info.zookeeper}"
zk_auth_file = "{unreadable}"
[contexts.refused]
zookeeper = "{sasl_zookeeper}/kafka"
zk_sasl_mechanism = "DIGEST-MD5"
zk_sasl_username = "{SASL_USER}"
zk_sasl_password_file = "{wrong}"
"""
    )
    try:
        yield path
    finally:
        with zk_client(hosts) as root:
            root.delete("/fleet-not-kafka", recursive=True)
            root.delete("/fleet-no-brokers", recursive=True)


def _by_context(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(r["context"]): r for r in rows}


def test_every_context_is_one_row_worst_first_with_its_reason_and_the_hung_one_at_the_deadline(
    sandbox: Sandbox, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code = main(["fleet", "--json", "--deadline", f"{DEADLINE_S:g}s", "--config", str(config)])
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 1, err  # a cluster is offline or unreadable
    assert took <= DEADLINE_S + 1.0
    rows = json.loads(out)["clusters"]
    assert [r["severity"] for r in rows] == sorted((r["severity"] for r in rows), reverse=True)
    found = _by_context(rows)
    assert set(found) == {"healthy", "healthy-again", "sick", "hung", "down", "not-kafka", "no-brokers", "typo",
                          "secret", "refused"}  # fmt: skip

    healthy = found["healthy"]
    assert healthy["state"] == "ok" and healthy["reason"] is None
    assert (healthy["brokers_alive"], healthy["brokers_known"], healthy["controller"] in (1, 2, 3)) == (3, 3, True)
    assert healthy["offline"] == healthy["under_replicated"] == healthy["under_min_isr"] == 0
    assert healthy["release"] == f"{'.'.join(sandbox.info().kafka_version.split('.')[:2])} (from ApiVersions)"
    assert isinstance(healthy["topics"], int) and isinstance(healthy["partitions"], int)
    assert healthy["migration"] is not None and healthy["zookeeper_quorum"] is not None
    assert healthy["lagging_groups"] is not None  # a bootstrap server is set
    assert found["healthy-again"]["lagging_groups"] is None  # none is
    assert healthy["cluster_id"] == found["healthy-again"]["cluster_id"] is not None
    assert any("one cluster listed twice" in n and "healthy-again" in n for n in healthy["notes"])  # type: ignore[attr-defined]

    sick = found["sick"]
    assert sick["state"] == "offline"
    assert (sick["brokers_alive"], sick["brokers_known"]) == (1, 2)
    assert sick["offline"] == 1 and sick["under_replicated"] >= 2  # type: ignore[operator]
    assert "broker 2" in str(sick["likely_cause"])
    assert sick["last_change"] is not None and time.time() * 1000 - sick["last_change_ms"] < 600_000  # type: ignore[operator]

    hung = found["hung"]
    assert hung["state"] == f"no answer in {DEADLINE_S:g} s"
    assert "the read goes on in the background" in str(hung["reason"])

    assert found["down"]["state"] == "unreachable" and "connection refused" in str(found["down"]["reason"])
    assert found["not-kafka"]["state"] == "wrong chroot"
    assert "Kafka clusters on this ZooKeeper" in str(found["not-kafka"]["reason"])
    assert found["no-brokers"]["state"] == "no brokers"
    assert found["typo"]["state"] == "config error" and "zookeper" in str(found["typo"]["reason"])
    assert found["secret"]["state"] == "config error" and "cannot read the zk_auth file" in str(
        found["secret"]["reason"]
    )
    assert found["refused"]["state"] == "auth failed"
    assert "rejected SASL DIGEST-MD5: check the credentials" in str(found["refused"]["reason"])
    assert "alice" not in out and "secret\\n" not in out and WRONG_PASSWORD not in out  # never a secret


def test_the_other_rows_arrive_on_time_while_the_hung_one_waits_for_its_deadline(config: Path) -> None:
    config_file = load_config(config, per_context=True)
    contexts = {**config_file.contexts, **config_file.broken}
    arrived: dict[str, float] = {}
    started = time.monotonic()

    def on_row(row: FleetRow) -> None:
        arrived[row.context] = time.monotonic() - started

    rows = FleetReader(contexts, DEADLINE_S).read(on_row)
    assert {r.context for r in rows} == set(contexts)
    assert DEADLINE_S <= arrived["hung"] <= DEADLINE_S + 1.0
    assert max(t for c, t in arrived.items() if c != "hung") < DEADLINE_S  # none waited for the hung one


def test_the_command_exits_within_the_deadline_and_a_second_while_a_zookeeper_hangs(config: Path) -> None:
    # kzc's own start-up (Python and its imports) is measured on the same machine: the contexts that need no
    # cluster answer at once.
    command = [sys.executable, "-m", "cli.main", "fleet", "--json", "--config", str(config)]
    started = time.monotonic()
    quick = subprocess.run([*command, "--contexts", "typo,secret"], capture_output=True, text=True, timeout=60)
    startup = time.monotonic() - started
    assert quick.returncode == 1, quick.stderr
    started = time.monotonic()
    done = subprocess.run([*command, "--deadline", "4s"], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert _by_context(json.loads(done.stdout)["clusters"])["hung"]["state"] == "no answer in 4 s"
    assert took <= 4.0 + 1.0 + startup, (took, startup)


def test_the_text_form_lists_every_context_and_says_why(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["fleet", "--deadline", "4s", "--config", str(config), "--contexts", "sick,down,typo"])
    out, _ = capsys.readouterr()
    table, details = out.split("\n\n", 1)
    lines = table.splitlines()
    assert lines[0].split()[:2] == ["CONTEXT", "STATE"]
    # Worst first: the offline partitions first, then by name.
    assert [line.split()[0] for line in lines[1:]] == ["sick", "down", "typo"]
    assert "ZooKeeper refused: " in details and "unknown key(s) zookeper" in details
    assert "1 partition(s) without a live leader" in details and "likely cause:" in details


def test_watch_prints_each_row_as_it_arrives_and_again_only_when_it_changes(sandbox: Sandbox, config: Path) -> None:
    command = [sys.executable, "-m", "cli.main", "fleet", "--watch", "--json", "--interval", "1s", "--deadline", "4s",
               "--config", str(config), "--contexts", "healthy-again,typo,hung"]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = _lines(proc)
    try:
        first = [json.loads(lines.get(timeout=30)) for _ in range(3)]
        # The hung one last, at its deadline; the others did not wait for it.
        assert [r["context"] for r in first[:2]] in (["healthy-again", "typo"], ["typo", "healthy-again"])
        assert (first[2]["context"], first[2]["state"]) == ("hung", "no answer in 4 s")
        topics = next(r["topics"] for r in first if r["context"] == "healthy-again")
        code = main(["topic", "create", "fleet-watch", "--partitions", "1", "--replication-factor", "1", "--yes",
                     "--zookeeper", sandbox.info().zookeeper])  # fmt: skip
        assert code == 0
        # Until the changed row comes, the unchanged typo row is never printed again (the hung one may be: what
        # its read is doing changes).
        later = [json.loads(lines.get(timeout=30))]
        while later[-1]["context"] != "healthy-again":
            later.append(json.loads(lines.get(timeout=30)))
        assert later[-1]["topics"] == topics + 1
        assert "typo" not in {r["context"] for r in later}
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
        main(["topic", "delete", "fleet-watch", "--yes", "--zookeeper", sandbox.info().zookeeper])


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The lines ``proc`` prints, as they come (read on a thread of their own)."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def test_kzc_broker_shows_the_exact_release_its_api_versions_date(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    release = ".".join(sandbox.info().kafka_version.split(".")[:2])
    assert main(["broker", "1", "--json", "--zookeeper", sandbox.info().zookeeper]) == 0
    assert json.loads(capsys.readouterr().out)["release"] == {"release": release, "from": "ApiVersions"}
    assert main(["broker", "1", "--zookeeper", sandbox.info().zookeeper]) == 0
    assert f"  release       {release} (from ApiVersions)" in capsys.readouterr().out.splitlines()


@pytest.fixture
def pausing_zookeeper(tmp_path: Path) -> Iterator[int]:
    """A standalone ZooKeeper holding Kafka's znodes and no broker at ``/kafka`` (a ``no brokers`` row) that the
    test SIGSTOPs (continued again before it is stopped); yields its port."""
    with standalone_zookeeper(tmp_path / "zk") as port:
        with zk_client(f"127.0.0.1:{port}") as zk:
            for path in ("/kafka/brokers/ids", "/kafka/brokers/topics"):
                zk.create(path, b"", makepath=True)
        yield port
        os.kill(_pid_listening(port), signal.SIGCONT)


def test_the_fleet_screen_opens_a_cluster_comes_back_and_marks_the_one_that_stops_answering_stale(
    sandbox: Sandbox, sick: Sandbox, pausing_zookeeper: int, tmp_path: Path
) -> None:
    assert shutil.which("tmux"), "tmux is needed for the end-to-end test"
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[contexts.healthy]
zookeeper = "{sandbox.info().zookeeper}"
[contexts.sick]
zookeeper = "{sick.info().zookeeper}"
[contexts.pausing]
zookeeper = "127.0.0.1:{pausing_zookeeper}/kafka"
"""
    )
    tmux = new_tmux(tmp_path)
    try:
        tmux.start([str(KZC), "--fleet", "--config", str(path)])
        screen = tmux.wait_for("3 of 3 context(s) read")
        rows = [line.split() for line in screen.split("─Why")[0].splitlines()]  # the table, not the detail
        order = [r[0] for r in rows if r and r[0] in ("healthy", "sick", "pausing")]
        assert order == ["sick", "pausing", "healthy"], screen  # worst first: offline, no brokers, ok
        assert "offline" in _line(screen, "sick") and "no brokers" in _line(screen, "pausing")
        tmux.keys("End", "Enter")  # the healthy one, last
        tmux.wait_for("ZK connected")
        tmux.keys("Escape")
        screen = tmux.wait_for("Fleet: every context")
        assert "offline" in _line(screen, "sick")  # the rows kept, and read on
        os.kill(_pid_listening(pausing_zookeeper), signal.SIGSTOP)
        tmux.keys("r")
        screen = tmux.wait_for("stale since", timeout=60)
        assert "(no answer in 10 s)" in _line(screen, "pausing"), screen
        assert "offline" in _line(screen, "sick") and " ok " in _line(screen, "healthy")
        tmux.keys("q")
        wait_until(tmux.dead, 20, "kzc to exit on q")
    finally:
        tmux.kill()


def _line(screen: str, context: str) -> str:
    return next((line for line in screen.splitlines() if line.split()[:1] == [context]), "")


# ---- NoAuth: ZooKeeper's ACLs refuse the context's credentials ---------------------------------------------------


@pytest.fixture(params=["the chroot", "below the chroot"])
def locked_cluster(sandbox: Sandbox, unique_name: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A chroot holding a Kafka cluster's znodes (hand-written) that only the digest user ``ops:secret`` may read:
    every znode locked (an operator's recursive setAcl), or every znode but the chroot itself; yields its connect
    string."""
    hosts = sandbox.info().zookeeper.rsplit("/", 1)[0]
    chroot = f"/fleet-locked-{unique_name}"
    acl = [make_digest_acl("ops", "secret", all=True)]
    owner = KazooClient(hosts=hosts, auth_data=[("digest", "ops:secret")], default_acl=acl, timeout=10)
    owner.start(timeout=30)
    try:
        owner.create(chroot, b"", acl=acl if request.param == "the chroot" else OPEN_ACL_UNSAFE)
        for path, data in sorted(healthy_tree().items()):
            owner.ensure_path(chroot + path.rsplit("/", 1)[0])
            if data is not None:
                owner.create(chroot + path, data)
        yield hosts + chroot
    finally:
        owner.delete(chroot, recursive=True)
        owner.stop()
        owner.close()


def test_a_cluster_whose_acls_refuse_the_credentials_is_an_auth_failed_row_and_delays_no_other(
    sandbox: Sandbox, locked_cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f"""
[contexts.healthy]
zookeeper = "{sandbox.info().zookeeper}"
[contexts.no-credentials]
zookeeper = "{locked_cluster}"
[contexts.wrong-password]
zookeeper = "{locked_cluster}"
zk_auth = "ops:wrong"
[contexts.right-password]
zookeeper = "{locked_cluster}"
zk_auth = "ops:secret"
"""
    )
    started = time.monotonic()
    assert main(["fleet", "--json", "--deadline", f"{DEADLINE_S:g}s", "--config", str(config)]) == 1
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    found = _by_context(json.loads(out)["clusters"])
    assert took < DEADLINE_S, took  # nobody waited for a deadline
    for name in ("no-credentials", "wrong-password"):
        assert found[name]["state"] == "auth failed", found[name]
        assert "(NoAuth)" in str(found[name]["reason"]) and found[name]["brokers_alive"] is None
    assert (found["right-password"]["state"], found["right-password"]["brokers_alive"]) == ("ok", 3)
    assert found["healthy"]["state"] == "ok"
    assert "secret" not in out + err and "ops:wrong" not in out + err  # never a secret
    # The fleet screen's reader gives the same rows (and, its watches refused too, reads them again each round).
    reader = FollowingReader(load_config(config, per_context=True).contexts, DEADLINE_S)
    try:
        for _ in range(2):
            screen = {r.context: r for r in reader.read()}
            assert {screen[n].state for n in ("no-credentials", "wrong-password")} == {"auth failed"}
            assert screen["no-credentials"].reason == found["no-credentials"]["reason"]
    finally:
        reader.close()


# ---- the fleet screen's reader: a cluster is read whole again only when it changed ----------------------------


def test_the_following_reader_reads_a_cluster_again_only_after_a_watched_znode_changed(
    sandbox: Sandbox, unique_name: str, tmp_path: Path
) -> None:
    hosts = sandbox.info().zookeeper.rsplit("/", 1)[0]
    chroot = f"/fleet-follow-{unique_name}"  # hand-written znodes: no controller acts on them
    config = tmp_path / "config.toml"
    config.write_text(f'[contexts.still]\nzookeeper = "{hosts}{chroot}"\n')
    reader = FollowingReader(load_config(config, per_context=True).contexts, DEADLINE_S)
    with zk_client(hosts) as root:
        root.ensure_path(chroot)
        try:
            with zk_client(hosts + chroot) as zk:
                write(zk, healthy_tree())
                (first,) = reader.read()
                assert (first.state, first.brokers_alive) == ("ok", 3)
                # Once its watches were set before a read, a round without changes reads nothing.
                wait_until(lambda: reader.read() == [], 30, "a round that reads nothing")
                reads = reader.whole_reads["still"]
                assert reader.read() == [] and reader.whole_reads["still"] == reads
                zk.create(f"{BROKER_IDS}/4", broker(4))
                wait_until(lambda: reader.watches["still"].changed, 10, "the /brokers/ids watch fired")
                (after,) = reader.read()
                assert (after.state, after.brokers_alive, after.brokers_known) == ("ok", 4, 4)
                assert reader.whole_reads["still"] == reads + 1
        finally:
            reader.close()
            root.delete(chroot, recursive=True)


def test_the_following_reader_shows_a_restarted_broker_s_exact_release_once_it_answers(
    sick: Sandbox, tmp_path: Path
) -> None:
    # Last in the module: broker 2 of ``sick`` comes back (the tests above need it dead).
    exact = f"{'.'.join(sick.info().kafka_version.split('.')[:2])} (from ApiVersions)"
    config = tmp_path / "config.toml"
    config.write_text(f'[contexts.sick]\nzookeeper = "{sick.info().zookeeper}"\n')
    reader = FollowingReader(load_config(config, per_context=True).contexts, DEADLINE_S)
    latest: dict[str, FleetRow] = {}

    def take(row: FleetRow) -> None:
        latest[row.context] = row

    starting = threading.Thread(target=sick.start_broker, args=(2,), name="start-broker-2", daemon=True)
    try:
        reader.read(take)
        assert (latest["sick"].brokers_alive, latest["sick"].release) == (1, exact)
        starting.start()
        # Read as soon as broker 2 registers: it registers before it serves requests, so its ApiVersions may not
        # answer yet; the reader asks it again until it does.
        wait_until(lambda: reader.watches["sick"].changed, 120, "broker 2's registration to fire the watch")
        reader.read(take)
        wait_until(lambda: [reader.read(take)] and latest["sick"].release == exact, 60, "broker 2's exact release")
        assert latest["sick"].brokers_alive == 2
    finally:
        reader.close()
        starting.join(120)
