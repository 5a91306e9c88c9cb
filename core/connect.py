"""Connect strings as Kafka's tools read them: ZooKeeper hosts with an optional chroot, bootstrap servers.

``--zookeeper HOST:PORT[,HOST:PORT...][/chroot]`` (IPv6 as ``[::1]:2181``, port defaults to 2181 as in
ZooKeeper's own client) and ``--bootstrap-server HOST:PORT[,...]`` (port required, as Kafka requires).
Malformed input raises ``UsageError`` with a message naming the offending part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from core.errors import UsageError

ZK_DEFAULT_PORT = 2181
ZK_FORM = "HOST:PORT[,HOST:PORT...][/chroot]"
BOOTSTRAP_FORM = "HOST:PORT[,HOST:PORT...]"

# RFC 1123 host names and dotted IPv4; IPv6 goes in brackets and is checked separately.
_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$"
)
_IPV6 = re.compile(r"^[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?$")


@dataclass(frozen=True, slots=True)
class HostPort:
    """One server address; ``host`` holds an IPv6 address without brackets."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class ZkConnect:
    """A parsed ZooKeeper connect string."""

    hosts: tuple[HostPort, ...]
    chroot: str | None = None

    @property
    def hosts_string(self) -> str:
        """The hosts without the chroot, as kazoo and ZooKeeper accept them."""
        return ",".join(str(h) for h in self.hosts)

    def __str__(self) -> str:
        return self.hosts_string + (self.chroot or "")


def parse_zookeeper(text: str) -> ZkConnect:
    """Parse ``HOST:PORT[,HOST:PORT...][/chroot]``.

    Raises:
        UsageError: the string is empty, a host or port is malformed, or the chroot is not a valid
            ZooKeeper path.
    """
    raw = text.strip()
    if not raw:
        raise UsageError(f"the ZooKeeper connect string is empty (expected {ZK_FORM})")
    slash = raw.find("/")
    hosts_part, chroot = (raw, None) if slash < 0 else (raw[:slash], raw[slash:])
    hosts = _parse_hosts(hosts_part, raw, ZK_FORM, default_port=ZK_DEFAULT_PORT, what="ZooKeeper connect string")
    if chroot is not None:
        chroot = _check_chroot(chroot, raw)
    return ZkConnect(hosts, chroot)


def parse_bootstrap(text: str) -> tuple[HostPort, ...]:
    """Parse ``HOST:PORT[,HOST:PORT...]`` (a port is required, as Kafka's clients require).

    Raises:
        UsageError: the list is empty or an entry is malformed.
    """
    raw = text.strip()
    if not raw:
        raise UsageError(f"the bootstrap server list is empty (expected {BOOTSTRAP_FORM})")
    if "/" in raw:
        raise UsageError(f"invalid bootstrap server list '{raw}': a path is not allowed (expected {BOOTSTRAP_FORM})")
    return _parse_hosts(raw, raw, BOOTSTRAP_FORM, default_port=None, what="bootstrap server list")


def bootstrap_string(servers: tuple[HostPort, ...]) -> str:
    """The ``bootstrap.servers`` value for the given servers."""
    return ",".join(str(s) for s in servers)


def _parse_hosts(part: str, raw: str, form: str, default_port: int | None, what: str) -> tuple[HostPort, ...]:
    def fail(reason: str) -> UsageError:
        return UsageError(f"invalid {what} '{raw}': {reason} (expected {form})")

    if not part:
        raise fail("no host before the chroot")
    hosts = []
    for entry in part.split(","):
        entry = entry.strip()
        if not entry:
            raise fail("empty host entry")
        hosts.append(_parse_host_port(entry, default_port, fail))
    return tuple(hosts)


def _parse_host_port(entry: str, default_port: int | None, fail: Callable[[str], UsageError]) -> HostPort:
    port_text: str | None
    if entry.startswith("["):
        close = entry.find("]")
        if close < 0:
            raise fail(f"unclosed '[' in '{entry}'")
        host, rest = entry[1:close], entry[close + 1 :]
        if not host or not _IPV6.match(host) or ":" not in host:
            raise fail(f"'{host}' in '{entry}' is not an IPv6 address")
        if rest and not rest.startswith(":"):
            raise fail(f"unexpected '{rest}' after ']' in '{entry}'")
        port_text = rest[1:] if rest else None
    else:
        if entry.count(":") > 1:
            raise fail(f"'{entry}' looks like an IPv6 address: write it in brackets, e.g. [::1]:2181")
        host, sep, after = entry.partition(":")
        port_text = after if sep else None
        if not _HOSTNAME.match(host):
            raise fail(f"'{host}' is not a valid host name")
    if port_text is None:
        if default_port is None:
            raise fail(f"'{entry}' has no port")
        return HostPort(host, default_port)
    if not port_text.isascii() or not port_text.isdigit():
        raise fail(f"port '{port_text}' of '{entry}' is not a number")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise fail(f"port {port} of '{entry}' is out of range 1-65535")
    return HostPort(host, port)


def _check_chroot(chroot: str, raw: str) -> str | None:
    """Validate a chroot as ZooKeeper's ``PathUtils.validatePath`` does; ``/`` alone means no chroot."""

    def fail(reason: str) -> UsageError:
        return UsageError(f"invalid ZooKeeper chroot '{chroot}' in '{raw}': {reason}")

    if chroot == "/":
        return None
    if chroot.endswith("/"):
        raise fail("it must not end with '/'")
    for segment in chroot[1:].split("/"):
        if not segment:
            raise fail("empty path segment")
        if segment in (".", ".."):
            raise fail(f"relative segment '{segment}'")
        if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xF8FF for c in segment):
            raise fail("it contains a control or reserved character")
    return chroot
