"""Probing ZooKeeper over the network: the four-letter words over the client port (TLS when the client uses
it), the AdminServer's JSON where a word is refused, every server in parallel (``probe_ensemble``)."""

from __future__ import annotations

import json
import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from core.config import ConnectionSettings
from core.connect import HostPort, ZkConnect
from core.zookeeper.health.model import EnsembleHealth, KafkaSessionTimeouts, ServerHealth, assess, server_health
from core.zookeeper.health.words import (
    ADMIN_COMMANDS,
    DEFAULT_ADMIN_PORT,
    WHITELIST_HINT,
    WORDS,
    parse_admin,
    parse_conf,
    parse_mntr,
    parse_srvr,
    refused_word,
)

MAX_REPLY = 4 << 20  # a mntr reply is ~20 KB; anything past this is not ZooKeeper talking
PROBE_TIMEOUT_S = 5.0  # per request; a dead server costs this once per probe (the words stop at srvr)


def ask_word(server: HostPort, word: str, timeout: float = PROBE_TIMEOUT_S, tls: ssl.SSLContext | None = None) -> str:
    """Send one four-letter word and read the reply until the server closes the connection.

    Raises:
        OSError: the server cannot be reached or the reply did not arrive in ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    raw = socket.create_connection((server.host, server.port), timeout=timeout)
    with raw:
        sock = tls.wrap_socket(raw, server_hostname=server.host) if tls is not None else raw
        sock.sendall(word.encode("ascii"))
        chunks: list[bytes] = []
        size = 0
        while size < MAX_REPLY:
            sock.settimeout(max(0.05, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")


def ask_admin(host: str, port: int, command: str, timeout: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """``GET http://HOST:PORT/commands/<command>`` of the AdminServer, as JSON.

    Raises:
        OSError: unreachable, an HTTP error, or a reply that is not a JSON object.
    """
    url_host = f"[{host}]" if ":" in host else host
    url = f"http://{url_host}:{port}/commands/{command}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read(MAX_REPLY)
    except urllib.error.HTTPError as exc:
        raise OSError(f"{url} answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        reason = _os_error(exc.reason) if isinstance(exc.reason, OSError) else str(exc.reason)
        raise OSError(f"{url}: {reason}") from None
    except OSError as exc:
        raise OSError(f"{url}: {_os_error(exc)}") from None
    try:
        data = json.loads(body)
    except ValueError:
        raise OSError(f"{url} did not answer JSON") from None
    if not isinstance(data, dict):
        raise OSError(f"{url} did not answer a JSON object")
    return data


_PARSERS: dict[str, Callable[[str], dict[str, Any]]] = {"srvr": parse_srvr, "mntr": parse_mntr, "conf": parse_conf}


def probe_server(
    server: HostPort, now_ms: int, timeout: float = PROBE_TIMEOUT_S, admin_port: int | None = DEFAULT_ADMIN_PORT,
    tls: ssl.SSLContext | None = None,
) -> ServerHealth:  # fmt: skip
    """Ask one server ``srvr``, ``mntr`` and ``conf``; the AdminServer (``admin_port``, ``None``: never) for a
    word that is refused or unanswered, and for the fsync counter the words do not give on 3.6+. Never raises
    for the server's sake: what failed is in ``error`` / ``problems``."""
    facts: dict[str, dict[str, Any]] = {}
    sources: dict[str, str | None] = {}
    problems: list[str] = []
    refused: list[str] = []
    first_error: str | None = None

    def from_admin(word: str) -> bool:
        if admin_port is None:
            return False
        command = ADMIN_COMMANDS[word]
        try:
            facts[word] = parse_admin(command, ask_admin(server.host, admin_port, command, timeout))
        except (OSError, ValueError) as exc:
            problems.append(f"{word}: AdminServer {exc}")
            return False
        sources[word] = "admin"
        return True

    for word in WORDS:
        try:
            reply = ask_word(server, word, timeout, tls)
        except OSError as exc:
            text = _os_error(exc)
            if word == "srvr":
                first_error = text
                if not from_admin(word):
                    sources[word] = None
                    break  # the server does not answer: no point asking the other words
                continue
            problems.append(f"{word}: {text}")
            if not from_admin(word):
                sources[word] = None
            continue
        if refused_word(reply) or not reply.strip():
            if refused_word(reply):
                refused.append(word)
            else:
                problems.append(f"{word}: empty reply (four-letter words disabled?)")
            if not from_admin(word):
                sources[word] = None
                if refused_word(reply):
                    problems.append(f"{word} not whitelisted; allow it with {WHITELIST_HINT}")
            continue
        facts[word] = _PARSERS[word](reply)
        sources[word] = "4lw"
        if facts[word].get("serving") is False:
            break  # every word answers "not serving" now
    serving = not any(f.get("serving") is False for f in facts.values())
    if facts and serving and not any("fsync_exceeded" in f for f in facts.values()) and admin_port is not None:
        try:
            stats = parse_admin("server_stats", ask_admin(server.host, admin_port, "server_stats", timeout))
            if "fsync_exceeded" in stats:
                facts["admin"] = {"fsync_exceeded": stats["fsync_exceeded"]}
                sources["fsync"] = "admin"
        except (OSError, ValueError):
            sources["fsync"] = None  # only the AdminServer reports it on 3.6+; unknown without it
    return server_health(str(server), now_ms, facts, problems, refused, sources, error=first_error)


def _os_error(exc: OSError) -> str:
    if isinstance(exc, TimeoutError | socket.timeout):
        return "no answer (timed out)"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return exc.strerror or str(exc) or type(exc).__name__


def probe_ensemble(
    connect: ZkConnect,
    *,
    now_ms: Callable[[], int] | None = None,
    timeout: float = PROBE_TIMEOUT_S,
    admin_port: int | None = DEFAULT_ADMIN_PORT,
    tls: ssl.SSLContext | None = None,
    kafka: KafkaSessionTimeouts | None = None,
    previous: EnsembleHealth | None = None,
) -> EnsembleHealth:
    """Probe every server of ``connect`` in parallel (a dead server costs ``timeout``, not a multiple) and
    assess the ensemble. An unreachable server keeps, as ``last_seen``, its last reachable reading from
    ``previous``. Blocks up to about ``timeout`` times the words asked; never raises for a server's sake."""
    clock = now_ms or (lambda: int(time.time() * 1000))
    at = clock()
    hosts = connect.hosts
    with ThreadPoolExecutor(max_workers=max(1, len(hosts)), thread_name_prefix="kzc-zk-health") as pool:
        servers = list(pool.map(lambda h: probe_server(h, at, timeout, admin_port, tls), hosts))
    earlier = {s.server: s for s in previous.servers} if previous is not None else {}
    for i, s in enumerate(servers):
        if not s.reachable and s.server in earlier:
            old = earlier[s.server]
            servers[i] = replace(s, last_seen=old if old.reachable else old.last_seen)
    return assess(servers, at, kafka)


def tls_context(settings: ConnectionSettings) -> ssl.SSLContext | None:
    """The TLS context for the four-letter words when the connection uses TLS (the secure client port answers
    them over TLS), with the same CA, client certificate and hostname rule as the ZooKeeper session."""
    if not settings.zk_tls:
        return None
    context = ssl.create_default_context(cafile=settings.zk_tls_ca)
    context.check_hostname = settings.zk_tls_verify_hostname
    if settings.zk_tls_cert and settings.zk_tls_key:
        context.load_cert_chain(settings.zk_tls_cert, settings.zk_tls_key)
    return context
