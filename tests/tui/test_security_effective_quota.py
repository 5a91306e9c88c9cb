"""The security screen's effective quota (quotas tab): a user and a client id typed in give each quota type's
value and the entity it comes from by Kafka's precedence, with when it was read; it is read again on a timer
only while the tab is shown, on ``r``, and a failed read leaves the last answer marked stale with the reason."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.timer import Timer
from textual.widgets import Input, Static

import tui.screens.security as security
from core.config import ConnectionSettings, UserConfig
from core.errors import ConnectError
from core.human_time import clock_text
from core.kafka.quotas import DEFAULT, EffectiveQuota, QuotaEntity
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.security import SecurityScreen

QUOTAS = {
    QuotaEntity("alice", None): {"producer_byte_rate": "1024"},
    QuotaEntity("alice", "app1"): {"consumer_byte_rate": "2048"},
    QuotaEntity(None, DEFAULT): {"request_percentage": "50"},
}


class FlakyBackend(RecordedBackend):
    """Answers the effective quota until ``failing`` is set, then fails as a lost ZooKeeper does."""

    failing = False

    def effective_quota(self, user: str, client_id: str) -> list[EffectiveQuota]:
        if self.failing:
            self.effective_reads += 1
            raise ConnectError("ZooKeeper is not answering (connection loss)")
        return super().effective_quota(user, client_id)


def make(snapshot: ClusterSnapshot) -> tuple[KzcApp, FlakyBackend]:
    backend = FlakyBackend(snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), quotas=QUOTAS)
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)
    return app, backend


def shown(app: KzcApp) -> str:
    return str(app.screen.query_one("#effective-quota", Static).render())


@dataclass
class Ticks:
    """The effective quota's timer ticks: each with whether the tab was shown, and how many other timers were
    pending then (one chain of reads: none)."""

    shown: list[bool] = field(default_factory=list)
    pending_at_tick: list[int] = field(default_factory=list)
    pending: set[Timer] = field(default_factory=set)

    async def wait(self, pilot: Pilot[None], what: str, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            await pilot.pause(0.02)


def count_ticks(monkeypatch: pytest.MonkeyPatch) -> Ticks:
    """Follow the screen's effective-quota timers: which are pending, and each tick."""
    ticks = Ticks()
    set_timer = SecurityScreen.set_timer

    def tracked(screen: SecurityScreen, delay: float, callback: Any = None, **kw: Any) -> Timer:
        if callback != screen._effective_tick:
            return set_timer(screen, delay, callback, **kw)

        def fired() -> None:
            ticks.pending.discard(timer)
            ticks.pending_at_tick.append(len(ticks.pending))
            ticks.shown.append(screen._effective_shown())
            callback()

        timer = set_timer(screen, delay, fired, **kw)
        ticks.pending.add(timer)
        stop = timer.stop

        def stopped() -> None:
            ticks.pending.discard(timer)
            stop()

        timer.stop = stopped  # type: ignore[method-assign]
        return timer

    monkeypatch.setattr(SecurityScreen, "set_timer", tracked)
    return ticks


async def ask(pilot: Pilot[None], user: str, client: str) -> None:
    await pilot.press("A")
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    pilot.app.screen.query_one("#effective-user", Input).focus()
    await pilot.press(*user, "enter", *client, "enter")
    await settle(pilot)


async def test_the_effective_quota_says_each_value_where_it_comes_from_and_when_it_was_read(
    small_snapshot: ClusterSnapshot,
) -> None:
    app, backend = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, "alice", "app1")
        assert isinstance(app.screen, SecurityScreen)
        text = shown(app)
        assert "effective quotas of user alice with client-id app1" in text
        assert f"read {clock_text(int(FROZEN_NOW * 1000))}" in text
        assert "producer_byte_rate: 1024  (from user alice)" in text
        assert "consumer_byte_rate: 2048  (from user alice, client-id app1)" in text
        assert "request_percentage: 50  (from default client-id)" in text
        assert "controller_mutation_rate: -  (no quota at any level: unlimited)" in text
        assert backend.effective_reads == 1
        await pilot.press("r")
        await settle(pilot)
        assert backend.effective_reads == 2


async def test_one_side_alone_is_not_asked_for(small_snapshot: ClusterSnapshot) -> None:
    app, backend = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("A")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        app.screen.query_one("#effective-client", Input).focus()
        await pilot.press(*"app1", "enter")
        await settle(pilot)
        assert "depends on both" in shown(app) and backend.effective_reads == 0


async def test_the_timer_reads_only_while_the_tab_is_shown(
    small_snapshot: ClusterSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(security, "EFFECTIVE_REFRESH_S", 0.05)
    ticks = count_ticks(monkeypatch)
    app, backend = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, "alice", "app1")

        async def reads_at_least(n: int) -> None:
            await ticks.wait(pilot, f"{n} reads (only {backend.effective_reads})", lambda: backend.effective_reads >= n)

        await reads_at_least(3)  # the timer reads again while shown
        await pilot.press("1")  # the ACLs tab: the quota is not shown
        await settle(pilot)
        hidden_from = backend.effective_reads
        # The next tick finds the tab hidden: it reads nothing and sets no timer, so the chain ends there.
        await ticks.wait(pilot, "a tick while hidden", lambda: False in ticks.shown)
        await settle(pilot)
        assert not ticks.pending and backend.effective_reads <= hidden_from + 1  # at most the read already running
        await pilot.press("2")  # shown again: read at once, then on the timer
        await reads_at_least(hidden_from + 2)


async def test_r_does_not_start_a_second_timer(
    small_snapshot: ClusterSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(security, "EFFECTIVE_REFRESH_S", 0.2)
    ticks = count_ticks(monkeypatch)
    app, backend = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, "alice", "app1")
        for _ in range(5):
            await pilot.press("r")
            await settle(pilot)
        start, reads = len(ticks.pending_at_tick), backend.effective_reads
        await ticks.wait(pilot, "five ticks", lambda: len(ticks.pending_at_tick) >= start + 5)
        # One chain: when a tick fires, no other timer is pending (six chains would leave five), and each tick
        # reads once at most (plus the read a tick may have just started).
        assert ticks.pending_at_tick == [0] * len(ticks.pending_at_tick)
        assert len(ticks.pending) <= 1
        assert backend.effective_reads - reads <= len(ticks.pending_at_tick) - start + 1


async def test_a_failed_read_keeps_the_last_answer_marked_stale_with_the_reason(
    small_snapshot: ClusterSnapshot,
) -> None:
    app, backend = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, "alice", "app1")
        backend.failing = True
        await pilot.press("r")
        await settle(pilot)
        text = shown(app)
        assert "STALE since" in text and "connection loss" in text
        assert "producer_byte_rate: 1024  (from user alice)" in text  # the last answer, still shown
        assert app.screen.query_one("#effective-quota", Static).has_class("-stale")
        backend.failing = False
        await pilot.press("r")
        await settle(pilot)
        assert "STALE" not in shown(app)
