"""The move-off screen on a fake ``MoveOffActions``: the preview shows the plan and its grid, a wrong typed
number writes nothing, the right one applies exactly the previewed plan, and the screen follows the
partitions until they are done and the throttles are gone."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import App
from textual.widgets import Input, Static

from core.kafka.assignment import BrokerMeta
from core.reassign.move_off import plan_move_off
from core.reassign.plan import ReassignPlan
from core.reassign.progress import DONE, PartitionProgress, ReassignProgress
from tests.tui.helpers import settle
from tui.screens.move_off import MoveOffScreen


class FakeActions:
    """Plans on a small fixed cluster; records applies; the second look says done."""

    def __init__(self) -> None:
        self.applied: list[tuple[ReassignPlan, int | None]] = []
        self.looks = 0
        self.finished = False

    def plan_move_off(self, brokers: Sequence[int]) -> ReassignPlan:
        assignment = {("orders", 0): [1, 2], ("orders", 1): [2, 3], ("orders", 2): [3, 1]}
        return plan_move_off(assignment, [BrokerMeta(b) for b in (1, 2, 3, 4)], brokers)

    def apply(self, plan: ReassignPlan, throttle: int | None) -> None:
        self.applied.append((plan, throttle))

    def progress(self, plan: ReassignPlan) -> ReassignProgress:
        self.looks += 1
        phase = DONE if self.looks > 1 else "adding"
        parts = tuple(
            PartitionProgress(m.topic, m.partition, m.target, m.target, (), (), m.target, m.target[0], phase, ())
            for m in plan.moves
        )
        return ReassignProgress(parts)

    def finish(self, plan: ReassignPlan) -> list[str]:
        self.finished = True
        return ["brokers/1"]


class Host(App[None]):
    def __init__(self, actions: FakeActions) -> None:
        super().__init__()
        self.actions = actions

    def on_mount(self) -> None:
        self.push_screen(MoveOffScreen(2, self.actions, poll_interval=0))


def text(app: App[None], selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_move_off_preview_confirm_apply_and_follow() -> None:
    actions = FakeActions()
    app = Host(actions)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        preview = text(app, "#preview")
        assert "Move every replica off broker(s) 2 (minimal movement): 2 of 3 partitions change" in preview
        assert "orders-0: 1,2 -> 1,4" in preview
        assert "orders-1" in text(app, "#grid") and "+" in text(app, "#grid")
        # A wrong number writes nothing.
        app.screen.query_one("#confirm", Input).value = "9"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert actions.applied == []
        assert "Type 2" in text(app, "#status")
        # The right one applies exactly the previewed plan, with the throttle given.
        screen = app.screen
        assert isinstance(screen, MoveOffScreen)
        app.screen.query_one("#throttle", Input).value = "1000"
        app.screen.query_one("#confirm", Input).value = "2"
        await pilot.press("ctrl+s")
        for _ in range(5):
            await settle(pilot)
        assert actions.applied == [(screen.plan, 1000)]
        assert actions.looks == 2
        assert actions.finished
        assert "Done" in text(app, "#status") and "Throttle was removed." in text(app, "#status")
