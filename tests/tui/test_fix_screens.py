"""The election and config screens on fake capabilities: previews come from core's plans, a wrong typed
confirmation sends nothing, the right one sends exactly the previewed plan and the screen follows it; keys
typed ahead (in one burst, or while the screen opens) land where they were meant; each change is one line
of the console's event log with its outcome."""

from __future__ import annotations

import threading
from typing import Any, cast

from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, Static

from core.config import ConnectionSettings, UserConfig
from core.configs.plan import ConfigPlan, ConfigRequest, plan_change
from core.configs.zk import StoredConfig
from core.console.fixes import FixActions
from core.elections.plan import Candidate, PreferredPlan, plan_preferred, preferred_candidates
from core.errors import KafkaRuleError
from core.kafka.znodes import PartitionState
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, recorded_events, settle, type_fast
from tui.app import KzcApp
from tui.messages import ChangeFinished, TopicChosen
from tui.screens.config_edit import ConfigEditScreen
from tui.screens.elect_preferred import ElectPreferredScreen
from tui.screens.topic_detail import TopicDetailScreen


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
        self.changes: list[ChangeFinished] = []

    def on_mount(self) -> None:
        self.push_screen(self.first)

    def on_change_finished(self, message: ChangeFinished) -> None:
        self.changes.append(message)


class FixableBackend(RecordedBackend):
    """A recorded cluster whose fix screens act on fakes."""

    def __init__(self, snapshot: ClusterSnapshot, configs: FakeConfigs, elections: FakeElections) -> None:
        super().__init__(snapshot, recorded_events(), now_ms=lambda: int(FROZEN_NOW * 1000), read_only=False)
        self.fixes = FixActions(cast(Any, None), elections, configs)

    def fix_actions(self) -> FixActions | None:
        return self.fixes


def text(app: App[None], selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_preferred_election_preview_confirm_send_and_follow() -> None:
    actions = FakeElections()
    app = Host(ElectPreferredScreen("t", actions, poll_interval=0))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        preview = text(app, "#preview")
        assert "1 partition(s) would be sent, 2 skipped" in preview  # nothing is sent yet
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


async def test_the_election_confirmation_has_the_focus_and_takes_a_typed_burst() -> None:
    class SlowElections(FakeElections):
        def __init__(self) -> None:
            super().__init__()
            self.planned = threading.Event()

        def plan_preferred(self, topic: str | None) -> PreferredPlan:
            self.planned.wait(10)  # the cluster is slow: the plan comes when the test says
            return super().plan_preferred(topic)

    actions = SlowElections()
    app = Host(ElectPreferredScreen(None, actions, poll_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        type_fast(app, "1", "ctrl+s")  # typed as the screen opens, before the plan is even shown
        await pilot.pause()
        assert app.screen.query_one("#confirm", Input).value == "1"
        assert text(app, "#status").startswith("Still planning") and actions.sent == []  # never sent unseen
        actions.planned.set()
        await settle(pilot)
        type_fast(app, "ctrl+s")  # the plan is there now: the typed number is used
        for _ in range(3):
            await settle(pilot)
        assert [p.keys for p in actions.sent] == [(("t", 1),)]
        assert [(c.text, c.severity) for c in app.changes] == [
            (
                "you: preferred leader election of every topic: 1 partition(s) sent, 1 led by their preferred replica",
                "info",
            )
        ]


async def test_the_election_dry_run_shows_the_request_and_sends_nothing() -> None:
    actions = FakeElections()
    app = Host(ElectPreferredScreen("t", actions, poll_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+d")
        dry = text(app, "#dry-run")
        assert dry.startswith("DRY RUN: nothing is written.")
        assert "create /admin/preferred_replica_election" in dry
        assert '{"version":1,"partitions":[{"topic":"t","partition":1}]}' in dry
        assert actions.sent == []


async def test_nothing_to_elect_and_a_failed_plan_leave_no_prompt_behind() -> None:
    actions = FakeElections()
    actions.states[("t", 1)] = state(2, 1, 2)  # already led by its preferred replica
    app = Host(ElectPreferredScreen("t", actions, poll_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert text(app, "#status") == "Nothing to elect."
        assert not app.screen.query_one("#confirm", Input).display
        assert "planning" not in text(app, "#preview")

    class Failing(FakeElections):
        def plan_preferred(self, topic: str | None) -> PreferredPlan:
            raise KafkaRuleError("Preferred replica leader election currently in progress for t-1. Aborting operation")

    app = Host(ElectPreferredScreen("t", Failing(), poll_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert text(app, "#status").startswith("Error: Preferred replica leader election currently in progress")
        assert text(app, "#preview") == "" and not app.screen.query_one("#confirm", Input).display


async def test_a_failed_send_is_one_error_line_of_the_log() -> None:
    class Refusing(FakeElections):
        def apply_preferred(self, plan: PreferredPlan) -> dict[tuple[str, int], str | None]:
            raise KafkaRuleError("Preferred replica leader election currently in progress for t-0. Aborting operation")

    app = Host(ElectPreferredScreen("t", Refusing(), poll_interval=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        type_fast(app, "1", "ctrl+s")
        await settle(pilot)
        assert [(c.severity, c.text.split(": not sent: ")[0]) for c in app.changes] == [
            ("error", "you: preferred leader election of topic t")
        ]


async def test_config_typed_ahead_with_ctrl_d_in_one_burst_is_checked_with_the_typed_text() -> None:
    actions = FakeConfigs()
    app = Host(ConfigEditScreen("t", actions))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        type_fast(app, *"retention.ms=10", "ctrl+d")
        await settle(pilot)
        assert "~ retention.ms: 5 -> 10" in text(app, "#diff")
        type_fast(app, "tab", "tab", "t", "ctrl+s")
        await settle(pilot)
        assert [dict(p.after) for p in actions.applied] == [{"retention.ms": "10"}]
        assert [c.text for c in app.changes] == ["you: config of topic t written: ~ retention.ms: 5 -> 10"]


async def test_c_text_and_ctrl_d_in_one_burst_from_the_topic_reach_the_config_editor(
    small_snapshot: ClusterSnapshot,
) -> None:
    configs = FakeConfigs()
    backend = FixableBackend(small_snapshot, configs, FakeElections())
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.post_message(TopicChosen("events.orders-00011"))
        await settle(pilot)
        assert isinstance(app.screen, TopicDetailScreen)
        type_fast(app, "C", *"retention.ms=10", "ctrl+d")
        await settle(pilot)
        assert isinstance(app.screen, ConfigEditScreen)
        assert app.screen.query_one("#set", Input).value == "retention.ms=10"
        assert "~ retention.ms: 5 -> 10" in text(app, "#diff")
        type_fast(app, "tab", "tab", *"events.orders-00011", "ctrl+s")
        await settle(pilot)
        assert [dict(p.after) for p in configs.applied] == [{"retention.ms": "10"}]
        assert app.journal.lines[-1].text == (
            "you: config of topic events.orders-00011 written: ~ retention.ms: 5 -> 10"
        )  # the event log has the user's own change, with its outcome
