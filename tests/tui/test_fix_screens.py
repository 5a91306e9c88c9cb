"""The election and config screens on fake capabilities: previews come from core's plans, a wrong typed
confirmation sends nothing, the right one sends exactly the previewed plan and the screen follows it."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, Static

from core.configs.plan import ConfigPlan, ConfigRequest, plan_change
from core.configs.zk import StoredConfig
from core.elections.plan import Candidate, PreferredPlan, plan_preferred, preferred_candidates
from core.kafka.znodes import PartitionState
from tests.tui.helpers import settle
from tui.screens.config_edit import ConfigEditScreen
from tui.screens.elect_preferred import ElectPreferredScreen


def state(leader: int, *isr: int) -> PartitionState:
    return PartitionState(
        leader=leader, leader_epoch=0, isr=isr, controller_epoch=1, leader_recovery_state=0, version=1
    )


class FakeElections:
    def __init__(self) -> None:
        self.assignment = {("t", 0): (1, 2), ("t", 1): (2, 1), ("t", 2): (3, 1)}
        self.states = {("t", 0): state(1, 1, 2), ("t", 1): state(1, 1, 2), ("t", 2): state(1, 1)}
        self.sent: list[PreferredPlan] = []

    def _candidates(self) -> list[Candidate]:
        return preferred_candidates(self.assignment, self.states, frozenset({1, 2}), frozenset())

    def plan_preferred(self, topic: str | None) -> PreferredPlan:
        return plan_preferred(self._candidates(), "zookeeper")

    def apply_preferred(self, plan: PreferredPlan) -> dict[tuple[str, int], str | None]:
        self.sent.append(plan)
        self.states[("t", 1)] = state(2, 1, 2)  # the controller elects the preferred replica
        return dict.fromkeys(plan.keys)

    def look(self, plan: PreferredPlan) -> list[Candidate]:
        return [c for c in self._candidates() if (c.topic, c.partition) in plan.keys]


class FakeConfigs:
    def __init__(self) -> None:
        self.config = StoredConfig("topics", "t", (("retention.ms", "5"),), 1)
        self.applied: list[ConfigPlan] = []

    def stored(self, topic: str) -> StoredConfig:
        return self.config

    def plan(self, request: ConfigRequest) -> ConfigPlan:
        return plan_change(request, self.config, True, "zookeeper")

    def apply(self, plan: ConfigPlan) -> StoredConfig:
        self.applied.append(plan)
        self.config = StoredConfig("topics", "t", plan.after, 2)
        return self.config


class Host(App[None]):
    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.first = screen

    def on_mount(self) -> None:
        self.push_screen(self.first)


def text(app: App[None], selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_preferred_election_preview_confirm_send_and_follow() -> None:
    actions = FakeElections()
    app = Host(ElectPreferredScreen("t", actions, poll_interval=0))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        preview = text(app, "#preview")
        assert "1 partition(s) sent, 2 skipped" in preview
        assert "skipped t-2: preferred replica 3 is not registered (broker down)" in preview
        app.screen.query_one("#confirm", Input).value = "2"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert actions.sent == []
        app.screen.query_one("#confirm", Input).value = "1"
        await pilot.press("ctrl+s")
        for _ in range(3):
            await settle(pilot)
        assert [p.keys for p in actions.sent] == [(("t", 1),)]
        assert "1/1 partitions led by their preferred replica" in text(app, "#preview")
        assert "Done." in text(app, "#status")


async def test_config_edit_diff_confirm_and_write() -> None:
    actions = FakeConfigs()
    app = Host(ConfigEditScreen("t", actions))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "retention.ms=5" in text(app, "#current")
        app.screen.query_one("#set", Input).value = "retention.ms=10 segment.bytes=5"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "Invalid value 5 for configuration segment.bytes" in text(app, "#status")
        app.screen.query_one("#set", Input).value = "retention.ms=10"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "~ retention.ms: 5 -> 10" in text(app, "#diff")
        app.screen.query_one("#confirm", Input).value = "wrong"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert actions.applied == []
        app.screen.query_one("#confirm", Input).value = "t"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert [dict(p.after) for p in actions.applied] == [{"retention.ms": "10"}]
        assert "retention.ms=10" in text(app, "#current")
        assert "Written." in text(app, "#status")
