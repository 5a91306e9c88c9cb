"""Connect-string parsing: chroots, several hosts, IPv6, default ports and malformed input."""

from __future__ import annotations

import pytest

from core.connect import HostPort, ZkConnect, bootstrap_string, parse_bootstrap, parse_zookeeper
from core.errors import UsageError


@pytest.mark.parametrize(
    ("text", "hosts", "chroot"),
    [
        ("127.0.0.1:2181", [("127.0.0.1", 2181)], None),
        ("zk1:2181,zk2:2182,zk3:2183/kafka", [("zk1", 2181), ("zk2", 2182), ("zk3", 2183)], "/kafka"),
        ("zk1:2181/kafka/prod-1", [("zk1", 2181)], "/kafka/prod-1"),
        ("zk1", [("zk1", 2181)], None),
        ("zk1/kafka", [("zk1", 2181)], "/kafka"),
        ("zk1:2181/", [("zk1", 2181)], None),
        ("[::1]:2181", [("::1", 2181)], None),
        ("[::1]", [("::1", 2181)], None),
        ("[fe80::1%eth0]:2181,[2001:db8::7]:2182/k", [("fe80::1%eth0", 2181), ("2001:db8::7", 2182)], "/k"),
        (
            " zk.example.com:2181 , zk-2.example.com:2181/c ",
            [("zk.example.com", 2181), ("zk-2.example.com", 2181)],
            "/c",
        ),
    ],
)
def test_zookeeper_connect_strings_parse_hosts_ports_and_chroot(
    text: str, hosts: list[tuple[str, int]], chroot: str | None
) -> None:
    assert parse_zookeeper(text) == ZkConnect(tuple(HostPort(h, p) for h, p in hosts), chroot)


def test_zookeeper_connect_string_round_trips_with_ipv6_brackets() -> None:
    assert str(parse_zookeeper("[::1]:2181,127.0.0.1:2182/kafka")) == "[::1]:2181,127.0.0.1:2182/kafka"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("/kafka", "no host"),
        ("zk1:abc", "port 'abc'"),
        ("zk1:0", "out of range"),
        ("zk1:65536", "out of range"),
        ("zk1:2181,,zk2:2181", "empty host entry"),
        ("zk1:2181,", "empty host entry"),
        ("::1:2181", "write it in brackets"),
        ("[::1:2181", "unclosed"),
        ("[zk1]:2181", "not an IPv6 address"),
        ("[::1]x", "unexpected"),
        ("zk 1:2181", "not a valid host name"),
        ("zk1:2181/kafka/", "must not end with '/'"),
        ("zk1:2181/ka//fka", "empty path segment"),
        ("zk1:2181/kafka/..", "relative segment"),
        ("zk1:2181:2182", "brackets"),
        ("zk1:+2181", "not a number"),
    ],
)
def test_malformed_zookeeper_connect_strings_are_rejected_with_a_clear_message(text: str, fragment: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_zookeeper(text)
    assert fragment in str(info.value)


def test_bootstrap_servers_require_ports_and_refuse_paths() -> None:
    assert parse_bootstrap("b1:9092,[::1]:9093") == (HostPort("b1", 9092), HostPort("::1", 9093))
    assert bootstrap_string(parse_bootstrap("b1:9092,[::1]:9093")) == "b1:9092,[::1]:9093"
    for bad, fragment in [("b1", "has no port"), ("b1:9092/x", "a path is not allowed"), ("", "empty")]:
        with pytest.raises(UsageError, match=fragment):
            parse_bootstrap(bad)
