"""Fetching the brokers' metrics endpoints: all at once, each with its own thread, within one deadline (2 s by
default), so a silent endpoint costs the deadline once and never blocks the others.

A thread whose endpoint never answers is left behind (a daemon, ended by its socket timeout): nothing waits
for it past the deadline.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from core.metrics.exposition import MAX_BYTES

DEFAULT_TIMEOUT = 2.0


@dataclass(frozen=True)
class Scraped:
    """One endpoint's answer: its text (None: ``failure`` says why) and when it was read."""

    url: str
    text: str | None
    failure: str | None
    monotonic: float  # when the answer was complete (or the deadline passed)
    wall_ms: int


def scrape_all(urls: Mapping[int, str], timeout: float = DEFAULT_TIMEOUT) -> dict[int, Scraped]:
    """Each broker's endpoint read in parallel; every result back within ``timeout`` seconds."""
    results: dict[int, Scraped] = {}
    lock = threading.Lock()

    def one(broker_id: int, url: str) -> None:
        text, failure = _fetch(url, timeout)
        with lock:
            results[broker_id] = Scraped(url, text, failure, time.monotonic(), int(time.time() * 1000))

    threads = [threading.Thread(target=one, args=(b, u), name=f"kzc-metrics-{b}", daemon=True) for b, u in urls.items()]
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    with lock:
        done = dict(results)
    for broker_id, url in urls.items():
        if broker_id not in done:
            done[broker_id] = Scraped(
                url, None, f"no answer within {timeout:g} s", time.monotonic(), int(time.time() * 1000)
            )
    return done


def _fetch(url: str, timeout: float) -> tuple[str | None, str | None]:
    """(text, None) or (None, why not)."""
    request = urllib.request.Request(url, headers={"Accept": "text/plain"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(MAX_BYTES + 1)
            kind = response.headers.get_content_type()
            charset = response.headers.get_content_charset() or "utf-8"
    except urllib.error.HTTPError as exc:
        return None, f"HTTP {exc.code} {exc.reason}"
    except urllib.error.URLError as exc:
        return None, _reason(exc.reason, timeout)
    except (OSError, ValueError) as exc:  # TimeoutError included
        return None, _reason(exc, timeout)
    if len(body) > MAX_BYTES:
        return None, f"an answer over {MAX_BYTES // (1024 * 1024)} MiB: kzc reads no more"
    if kind == "text/html":
        return None, "answers HTML, not Prometheus metrics (is the URL the exporter's /metrics?)"
    try:
        return body.decode(charset), None
    except (UnicodeDecodeError, LookupError):
        return None, f"an answer that is not {charset} text"


def _reason(cause: object, timeout: float) -> str:
    if isinstance(cause, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused (no exporter listening there?)"
    if isinstance(cause, socket.gaierror):
        return f"unknown host ({cause.strerror})"
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return str(cause) or type(cause).__name__
