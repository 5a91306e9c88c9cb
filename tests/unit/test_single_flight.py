"""``core.console.single_flight``: concurrent callers of a key share one read, a failed read is not kept, and no
lock is held while a read runs."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

import pytest

from core.console.single_flight import SingleFlight
from core.errors import ConnectError
from core.polling import wait_until

WAIT_S = 10.0


class Blocking:
    """A fetch that counts its calls and returns ``value`` only once released."""

    def __init__(self, value: int) -> None:
        self.value = value
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> int:
        self.calls += 1
        self.started.set()
        if not self.release.wait(WAIT_S):
            raise AssertionError("never released")
        return self.value


def in_thread(func: Any, out: dict[str, object], name: str) -> threading.Thread:
    def run() -> None:
        try:
            out[name] = func()
        except BaseException as exc:  # handed to the test's assertions
            out[name] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_two_concurrent_callers_of_a_key_share_one_read(monkeypatch: pytest.MonkeyPatch) -> None:
    flight: SingleFlight[int] = SingleFlight()
    fetch = Blocking(42)
    waiting = threading.Event()
    result = Future.result

    def observed_result(self: Future[int], timeout: float | None = None) -> int:
        waiting.set()  # a caller waits for the read in flight
        return result(self, timeout)

    monkeypatch.setattr(Future, "result", observed_result)
    out: dict[str, object] = {}
    first = in_thread(lambda: flight.read("k", fetch), out, "first")
    wait_until(fetch.started.is_set, WAIT_S, "the first read started")
    second = in_thread(lambda: flight.read("k", fetch), out, "second")
    wait_until(waiting.is_set, WAIT_S, "the second caller waits for the first read")
    fetch.release.set()
    first.join(WAIT_S)
    second.join(WAIT_S)
    assert out == {"first": 42, "second": 42}
    assert fetch.calls == 1


def test_a_waiter_gets_the_shared_reads_error_and_a_failed_read_is_not_kept() -> None:
    flight: SingleFlight[int] = SingleFlight()
    started, release = threading.Event(), threading.Event()

    def failing() -> int:
        started.set()
        release.wait(WAIT_S)
        raise ConnectError("the brokers did not answer")

    out: dict[str, object] = {}
    first = in_thread(lambda: flight.read("k", failing, max_age_s=3600), out, "first")
    wait_until(started.is_set, WAIT_S, "the failing read started")
    with pytest.raises(ConnectError, match="the k read did not finish within 0.05 s"):
        flight.read("k", lambda: 0, max_age_s=3600, wait_s=0.05)  # waited for the read in flight: ran none
    release.set()
    first.join(WAIT_S)
    assert isinstance(out["first"], ConnectError)
    assert flight.last("k") is None
    assert flight.read("k", lambda: 7, max_age_s=3600) == 7  # read again, not the failure
    assert flight.read("k", lambda: 8, max_age_s=3600) == 7  # a good read is kept for max_age_s
    assert flight.read("k", lambda: 9) == 9  # max_age_s 0: read now


def test_no_lock_is_held_while_a_read_runs() -> None:
    flight: SingleFlight[int] = SingleFlight()
    fetch = Blocking(1)
    out: dict[str, object] = {}
    slow = in_thread(lambda: flight.read("slow", fetch), out, "slow")
    wait_until(fetch.started.is_set, WAIT_S, "the slow read started")
    # While it runs, another key is read and the cache is consulted, each on its own thread and to the end.
    other = in_thread(lambda: flight.read("other", lambda: 2), out, "other")
    last = in_thread(lambda: flight.last("slow"), out, "last")
    wait_until(lambda: "other" in out and "last" in out, WAIT_S, "the other calls finish during the slow read")
    assert out == {"other": 2, "last": None}
    assert not fetch.release.is_set()
    fetch.release.set()
    for thread in (slow, other, last):
        thread.join(WAIT_S)
    assert out["slow"] == 1
