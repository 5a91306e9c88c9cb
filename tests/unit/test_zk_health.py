"""ZooKeeper's health: the parsers on real replies of ZooKeeper 3.8.4 (captured from a three-server ensemble on
loopback, tests/unit/fixtures/zk_health/), the ensemble rules (lag, quorum, alarms), and the probe's word /
AdminServer fallback against loopback stand-ins that answer those captured replies (the real ensemble
answers in tests/integration/test_zk_health.py)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from core.connect import HostPort, ZkConnect
from core.zookeeper.health import KafkaSessionTimeouts, ServerHealth, assess, probe_ensemble, summary_line
from core.zookeeper.health.model import server_health
from core.zookeeper.health.probe import probe_server
from core.zookeeper.health.words import parse_admin, parse_conf, parse_mntr, parse_srvr, refused_word

FIXTURES = Path(__file__).parent / "fixtures" / "zk_health"


def _text(name: str) -> str:
    return (FIXTURES / name).read_text()


def _json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


# ---- parsers on real replies -----------------------------------------------------------------------------


def test_srvr_of_a_leader() -> None:
    facts = parse_srvr(_text("3.8.4-leader.srvr.txt"))
    assert facts == {
        "version": "3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c",
        "latency_min": 0.0,
        "latency_avg": 0.0,
        "latency_max": 0.0,
        "connections": 1,
        "outstanding": 0,
        "zxid": 0x100000000,
        "mode": "leader",
        "znodes": 5,
        "serving": True,
    }


def test_srvr_of_a_server_without_quorum_says_only_that() -> None:
    assert parse_srvr(_text("3.8.4-no-quorum.srvr.txt")) == {"serving": False}


def test_srvr_of_zookeeper_3_4_with_integer_latencies() -> None:
    # The 3.4 layout (written from ZooKeeper 3.4's ServerStats.toString: integer average, no proposal sizes).
    text = (
        "Zookeeper version: 3.4.14-4c25d480e66aadd371de8bd2fd8da255ac140bcf, built on 03/06/2019 16:18 GMT\n"
        "Latency min/avg/max: 0/3/210\nReceived: 88\nSent: 87\nConnections: 4\nOutstanding: 2\n"
        "Zxid: 0x30000012a\nMode: follower\nNode count: 151\n"
    )
    facts = parse_srvr(text)
    assert (facts["latency_min"], facts["latency_avg"], facts["latency_max"]) == (0.0, 3.0, 210.0)
    assert facts["zxid"] == 0x30000012A and facts["mode"] == "follower" and facts["outstanding"] == 2


def test_mntr_of_a_leader_has_its_followers() -> None:
    facts = parse_mntr(_text("3.8.4-leader.mntr.txt"))
    assert facts["mode"] == "leader"
    assert facts["followers"] == 2 and facts["synced_followers"] == 2 and facts["pending_syncs"] == 0
    assert facts["quorum_size"] == 3
    for key in ("znodes", "watches", "ephemerals", "data_size", "open_fds", "max_fds", "connections"):
        assert isinstance(facts[key], int), key
    assert "fsync_exceeded" not in facts  # 3.6+ mntr does not carry it: only the AdminServer's srvr does


def test_mntr_of_a_follower_has_no_follower_counts() -> None:
    facts = parse_mntr(_text("3.8.4-follower.mntr.txt"))
    assert facts["mode"] == "follower"
    assert "synced_followers" not in facts and "followers" not in facts
    assert facts["max_fds"] == 20000


def test_conf_gives_session_bounds_and_members() -> None:
    facts = parse_conf(_text("3.8.4-leader.conf.txt"))
    assert facts["min_session_timeout"] == 1000 and facts["max_session_timeout"] == 10000
    assert facts["tick_time"] == 500
    assert len(facts["members"]) == 3 and all(m.endswith(":participant") for m in facts["members"])


def test_refusal_of_a_word_that_is_not_whitelisted() -> None:
    assert refused_word(_text("3.8.4-not-whitelisted.wchc.txt"))
    assert not refused_word(_text("3.8.4-leader.srvr.txt"))


def test_admin_json_gives_the_same_facts_as_the_words() -> None:
    stats = parse_admin("server_stats", _json("3.8.4-leader.admin-server_stats.json"))
    words = parse_srvr(_text("3.8.4-leader.srvr.txt"))
    for key in ("version", "mode", "zxid", "znodes", "outstanding"):
        assert stats[key] == words[key], key
    assert stats["fsync_exceeded"] == 0
    monitor = parse_admin("monitor", _json("3.8.4-leader.admin-monitor.json"))
    assert monitor["synced_followers"] == 2 and monitor["mode"] == "leader"
    conf = parse_admin("configuration", _json("3.8.4-leader.admin-configuration.json"))
    assert conf["max_session_timeout"] == 10000 and conf["min_session_timeout"] == 1000


def test_admin_json_of_a_server_without_quorum() -> None:
    assert parse_admin("server_stats", _json("3.8.4-no-quorum.admin-server_stats.json")) == {"serving": False}
    with pytest.raises(ValueError, match="boom"):
        parse_admin("monitor", {"command": "monitor", "error": "boom"})


# ---- the ensemble rules ----------------------------------------------------------------------------------


def _server(name: str, mode: str | None, zxid: int | None = None, **extra: Any) -> ServerHealth:
    serving = extra.pop("serving", mode is not None)
    return ServerHealth(
        server=name, probed_at_ms=1, reachable=extra.pop("reachable", True), serving=serving, mode=mode, zxid=zxid,
        **extra,
    )  # fmt: skip


MEMBERS = ("server.1=a:1:2:participant", "server.2=b:1:2:participant", "server.3=c:1:2:participant")


def _kinds(health: Any) -> list[str]:
    return [a.kind for a in health.alarms]


def test_healthy_ensemble_has_no_alarm_and_lags_from_the_leader() -> None:
    servers = [
        _server("a:2181", "leader", 0x200000010, synced_followers=2, members=MEMBERS),
        _server("b:2181", "follower", 0x200000010),
        _server("c:2181", "follower", 0x20000000C),
    ]
    health = assess(servers, 5)
    assert health.alarms == () and health.leader == "a:2181"
    assert [s.lag for s in health.servers] == [0, 0, 4]
    assert (health.ensemble_size, health.quorum, health.serving_voters) == (3, 2, 3)


def test_one_member_down_puts_the_quorum_at_risk() -> None:
    servers = [
        _server("a:2181", "leader", 0x2_0000_0010, synced_followers=1, members=MEMBERS),
        _server("b:2181", "follower", 0x2_0000_0010),
        _server("c:2181", None, reachable=False, serving=None, error="connection refused"),
    ]
    health = assess(servers, 5)
    assert _kinds(health) == ["quorum-at-risk", "unreachable"]
    assert "2 of 3 voting servers serve, 2 needed" in health.alarms[0].text


def test_two_members_down_loses_the_quorum_and_the_leader() -> None:
    servers = [
        _server("a:2181", None, reachable=True, serving=False),
        _server("b:2181", None, reachable=False, serving=None, error="connection refused"),
        _server("c:2181", None, reachable=False, serving=None, error="connection refused"),
    ]
    health = assess(servers, 5)
    assert _kinds(health) == ["no-leader", "quorum-lost", "not-serving", "unreachable", "unreachable"]
    assert health.ensemble_size_from == "connect string"


def test_two_leaders_are_a_split_brain() -> None:
    health = assess([_server("a:1", "leader", 5), _server("b:1", "leader", 6), _server("c:1", "follower", 5)], 1)
    assert "split-brain" in _kinds(health)


def test_member_behind_latency_outstanding_fsync_fds() -> None:
    servers = [
        _server("a:1", "leader", 0x1_0000_2000, synced_followers=2, members=MEMBERS, fsync_exceeded=3),
        _server("b:1", "follower", 0x1_0000_0000, latency_avg=75.0, outstanding=120),
        _server("c:1", "follower", 0x0_0000_2000, open_fds=950, max_fds=1000),  # an epoch behind
    ]
    health = assess(servers, 1)
    assert _kinds(health) == ["fsync-slow", "behind", "latency-high", "outstanding-high", "behind", "fds-high"]
    assert "8,192 transactions behind" in health.alarms[1].text
    assert "c:1 is 8,192 transactions behind" in health.alarms[4].text


def test_a_follower_on_the_previous_epoch_right_after_an_election_is_not_behind() -> None:
    # Real: after the leader was killed, the new leader showed 0x200000000 and a follower 0x100000022.
    servers = [_server("a:1", "leader", 0x2_0000_0000), _server("b:1", "follower", 0x1_0000_0022)]
    assert [s.lag for s in assess(servers, 1).servers] == [0, 0]


def test_kafka_session_timeout_beyond_what_the_servers_grant() -> None:
    servers = [
        _server(
            "a:1", "leader", 1, synced_followers=2, members=MEMBERS, min_session_timeout=1000, max_session_timeout=10000
        ),
        _server("b:1", "follower", 1, min_session_timeout=1000, max_session_timeout=10000),
        _server("c:1", "follower", 1, min_session_timeout=1000, max_session_timeout=10000),
    ]
    health = assess(servers, 1, KafkaSessionTimeouts({1: 18000, 2: 18000, 3: 6000}))
    assert _kinds(health) == ["session-timeout"] * 3
    assert health.alarms[0].text.startswith("brokers 1, 2 ask for 18,000 ms sessions")
    assert "at most 10,000 ms (maxSessionTimeout)" in health.alarms[0].text
    low = assess(servers, 1, KafkaSessionTimeouts({1: 500}))
    assert "at least 1,000 ms (minSessionTimeout)" in low.alarms[0].text


def test_standalone_has_no_quorum_alarm() -> None:
    health = assess([_server("a:1", "standalone", 7)], 1)
    assert health.alarms == () and health.serving_voters is None
    assert summary_line(health) == "1 server · standalone"  # not "no leader": a standalone server has none to lose


def test_server_health_srvr_wins_and_not_serving_clears_figures() -> None:
    s = server_health("a:1", 3, {"mntr": {"mode": "follower", "watches": 4}, "srvr": {"mode": "leader"}})
    assert s.mode == "leader" and s.watches == 4 and s.reachable
    gone = server_health("a:1", 3, {"srvr": {"serving": False}, "mntr": {"watches": 4}})
    assert gone.serving is False and gone.watches is None and gone.reachable


# ---- probing against loopback stand-ins ------------------------------------------------------------------


@contextmanager
def _words(replies: Mapping[str, str]) -> Iterator[HostPort]:
    """A loopback server that answers each four-letter word with its reply and closes, as ZooKeeper does."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                word = conn.recv(4).decode()
                conn.sendall(replies.get(word, f"{word} is not executed because it is not in the whitelist.").encode())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield HostPort("127.0.0.1", server.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        server.close()


@contextmanager
def _admin(commands: Mapping[str, dict[str, Any]]) -> Iterator[int]:
    """A loopback AdminServer serving ``/commands/<name>`` JSON."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = self.path.rsplit("/", 1)[-1]
            if name not in commands:
                self.send_error(404)
                return
            body = json.dumps(commands[name]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


LEADER_WORDS = {w: _text(f"3.8.4-leader.{w}.txt") for w in ("srvr", "mntr", "conf")}
LEADER_ADMIN = {c: _json(f"3.8.4-leader.admin-{c}.json") for c in ("server_stats", "monitor", "configuration")}


def test_probe_reads_every_word_and_the_fsync_counter_from_the_admin_server() -> None:
    with _words(LEADER_WORDS) as server, _admin(LEADER_ADMIN) as admin_port:
        s = probe_server(server, 10, admin_port=admin_port)
    assert s.sources == {"srvr": "4lw", "mntr": "4lw", "conf": "4lw", "fsync": "admin"}
    assert s.mode == "leader" and s.synced_followers == 2 and s.max_session_timeout == 10000
    assert s.fsync_exceeded == 0 and s.refused == () and s.problems == ()


def test_probe_falls_back_to_the_admin_server_for_refused_words() -> None:
    with _words({"srvr": LEADER_WORDS["srvr"]}) as server, _admin(LEADER_ADMIN) as admin_port:
        s = probe_server(server, 10, admin_port=admin_port)
        health = assess([s], 10)
    assert s.refused == ("mntr", "conf")
    assert s.sources["mntr"] == "admin" and s.sources["conf"] == "admin"
    assert s.synced_followers == 2 and s.max_session_timeout == 10000
    assert health.notes[0].startswith(f"mntr, conf not whitelisted on {server} (read from the AdminServer instead)")
    assert "4lw.commands.whitelist=srvr,mntr,conf" in health.notes[0]


def test_probe_says_what_is_missing_when_the_admin_server_is_off_too() -> None:
    with _words({"srvr": LEADER_WORDS["srvr"]}) as server:
        s = probe_server(server, 10, admin_port=_free_port())
    assert s.refused == ("mntr", "conf") and s.sources["mntr"] is None and s.synced_followers is None
    assert any("mntr not whitelisted; allow it with 4lw.commands.whitelist=srvr,mntr,conf" in p for p in s.problems)
    assert s.mode == "leader"


def test_probe_of_a_dead_server_keeps_its_last_reading() -> None:
    port = _free_port()
    connect = ZkConnect((HostPort("127.0.0.1", port),))
    with _words(LEADER_WORDS) as server:
        first = probe_ensemble(ZkConnect((server,)), now_ms=lambda: 1000, admin_port=None)
    # The same reading, as if it had been taken of the address that now refuses connections.
    previous = replace(first, servers=(replace(first.servers[0], server=f"127.0.0.1:{port}"),))
    health = probe_ensemble(connect, now_ms=lambda: 2000, admin_port=None, previous=previous)
    s = health.servers[0]
    assert not s.reachable and s.error == "connection refused"
    assert s.last_seen is not None and s.last_seen.mode == "leader" and s.last_seen.probed_at_ms == 1000
    assert "unreachable: connection refused (last seen leader)" in health.alarms[-1].text
    assert json.loads(json.dumps(health.to_json()))["servers"][0]["last_seen"]["mode"] == "leader"
