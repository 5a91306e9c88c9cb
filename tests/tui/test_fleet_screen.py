"""The fleet screen (``kzc --fleet``, ``F``): one row per context, worst first; a cluster that stops answering
turns ``stale since HH:MM:SS (reason)`` in place with its last counts; Enter opens the cluster, Esc comes back
with the rows still read. The rows come from a scripted reader here; tests/integration/test_fleet.py reads
real clusters (one killed broker, one SIGSTOP-ed ZooKeeper) in tmux."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Static

from core.config import ConnectionSettings, UserConfig
from core.fleet.row import NO_ANSWER, OFFLINE, OK, FleetRow, no_answer
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.cluster import ClusterScreen
from tui.screens.fleet import FleetScreen
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]
NOW_MS = int(FROZEN_NOW * 1000)
CONTEXTS: dict[str, ConnectionSettings | str] = {
    "prod": ConnectionSettings(),
    "staging": ConnectionSettings(),
    "legacy": ConnectionSettings(),
    "typo": "unknown key 'zookeper' in [contexts.typo]",
}


def row(context: str, state: str = OK, offline: int = 0, topics: int = 12, **kw: object) -> FleetRow:
    return FleetRow(context=context, zookeeper=f"zk-{context}:2181", state=state, cluster_id=f"id-{context}",
                    controller=1, brokers_alive=3, brokers_known=3, release="3.9", topics=topics, partitions=48,
                    offline=offline, under_replicated=0, under_min_isr=0, migration="not started", at_ms=NOW_MS,
                    **kw)  # type: ignore[arg-type]  # fmt: skip


class Scripted:
    """Each ``read`` hands the next round's rows (the last round again once they run out)."""

    def __init__(self, *rounds: list[FleetRow]) -> None:
        self.rounds = list(rounds)
        self.reads = 0

    def read(self, on_row: Callable[[FleetRow], None] | None = None) -> list[FleetRow]:
        rows = self.rounds[min(self.reads, len(self.rounds) - 1)]
        self.reads += 1
        for r in rows:
            if on_row is not None:
                on_row(r)
        return rows

    def forget(self) -> None:
        """Every round of the script is a whole read already."""

    def close(self) -> None:
        """Nothing is held open."""


FIRST = [
    row("prod"),
    row("staging", OFFLINE, offline=3, reason="3 partition(s) without a live leader"),
    row("legacy", topics=7),
    FleetRow("typo", None, "config error", reason="unknown key 'zookeper' in [contexts.typo]", at_ms=NOW_MS),
]
LEGACY_HANGS = [*FIRST[:2], no_answer("legacy", "zk-legacy:2181", 10, NOW_MS + 5_000), FIRST[3]]


def table(app: KzcApp) -> VirtualTable:
    return app.screen.query_one("#fleet-rows", VirtualTable)


def states(app: KzcApp) -> dict[str, str]:
    return {r.key: r.cells[1] for r in table(app).visible_rows()}


async def test_kzc_fleet_opens_on_every_context_worst_first(make_app: MakeApp) -> None:
    app = make_app(fleet=CONTEXTS, fleet_reader=Scripted(FIRST))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, FleetScreen)
        assert [r.key for r in table(app).visible_rows()] == ["staging", "typo", "legacy", "prod"]
        assert states(app)["staging"] == "offline" and states(app)["prod"] == "ok"
        title = str(app.screen.query_one("#fleet-title", Static).render())
        assert "4 of 4 context(s) read · 2 ok · 0 degraded · 2 down or unreadable" in title
        detail = str(app.screen.query_one("#fleet-detail", Static).render())
        assert "3 partition(s) without a live leader" in detail  # the highlighted (worst) row's reason


async def test_no_cluster_screen_before_a_row_is_opened(make_app: MakeApp) -> None:
    app = make_app(fleet=CONTEXTS, fleet_reader=Scripted(FIRST))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, FleetScreen)
        assert any("Enter on a fleet row opens one" in str(n.message) for n in app._notifications)


async def test_a_cluster_that_stops_answering_turns_stale_in_place(make_app: MakeApp) -> None:
    app = make_app(fleet=CONTEXTS, fleet_reader=Scripted(FIRST, LEGACY_HANGS))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert states(app)["legacy"] == "ok"
        await pilot.press("r")  # the next round, now
        await settle(pilot)
        assert states(app)["legacy"] == "stale since 22:13:25 (no answer in 10 s)"
        legacy = next(r for r in table(app).visible_rows() if r.key == "legacy")
        assert legacy.cells[10] == "7"  # its last read's topics, kept in place
        assert [r.key for r in table(app).visible_rows()][:3] == ["staging", "legacy", "typo"]
        await pilot.press("r")  # still hung: the same "since"
        await settle(pilot)
        assert states(app)["legacy"] == "stale since 22:13:25 (no answer in 10 s)"


async def test_a_cluster_never_heard_from_says_why(make_app: MakeApp) -> None:
    app = make_app(fleet=CONTEXTS, fleet_reader=Scripted(LEGACY_HANGS))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert states(app)["legacy"] == "no answer in 10 s"
        assert next(r for r in table(app).visible_rows() if r.key == "legacy").cells[10] == "-"
        assert app.fleet_poll is not None and app.fleet_poll.board.shown["legacy"].state == NO_ANSWER


async def test_f_opens_the_fleet_enter_the_cluster_and_esc_comes_back_live(make_app: MakeApp) -> None:
    reader = Scripted(FIRST, LEGACY_HANGS)
    config = UserConfig(contexts={"prod": ConnectionSettings(context="prod"), "legacy": ConnectionSettings()})
    app = make_app(config=config, settings=ConnectionSettings(context="prod"), fleet_reader=reader)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)
        await pilot.press("F")
        await settle(pilot)
        assert isinstance(app.screen, FleetScreen) and len(app.screen_stack) == 2  # the fleet is the root now
        assert table(app).move_to_key("prod")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)
        assert app.fleet_poll is not None
        app.fleet_poll.read_now()  # a round while the cluster is shown
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, FleetScreen)
        assert states(app)["legacy"].startswith("stale since 22:13:25")
