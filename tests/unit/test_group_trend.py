"""The lag trend (core.groups.trend): rates labelled as produced and consumed, a verdict that waits for a
window long enough and does not flip on the bursts of consumer commits, and the catch-up estimate."""

from __future__ import annotations

import pytest

from core.groups.lag import GroupLag, PartitionLag
from core.groups.trend import (
    CATCHING_UP,
    FALLING_BEHIND,
    MEASURING,
    MIN_WINDOW_S,
    STEADY,
    LagHistory,
    LagTrend,
    catch_up_seconds,
    raw_verdict,
)


def sample(committed: int, end: int, group: str = "g") -> GroupLag:
    return GroupLag(group, "kafka", "Stable", partitions=(PartitionLag("t", 0, committed, end),))


def test_rates_are_labelled_produced_then_consumed() -> None:
    trend = LagTrend(consumed_per_s=0.0, produced_per_s=30.0, window_s=120.0, lag=500, catch_up_s=None)
    assert trend.short() == "produced 30/s, consumed 0/s · falling behind"
    assert trend.describe() == "produced 30.0/s, consumed 0.0/s over 2m 0s: falling behind"
    assert trend.to_json()["direction"] == FALLING_BEHIND


def test_rates_from_two_samples() -> None:
    history = LagHistory(window_s=300)
    history.add(0.0, [sample(100, 5100)])
    assert history.trend("g") is None
    history.add(100.0, [sample(3100, 6100)])  # consumed 30/s, produced 10/s
    trend = history.trend("g")
    assert trend is not None
    assert (trend.consumed_per_s, trend.produced_per_s) == (30.0, 10.0)
    assert trend.direction == CATCHING_UP


def test_catch_up_text_while_catching_up() -> None:
    history = LagHistory(window_s=300)
    history.add(0.0, [sample(0, 10_000)])
    history.add(100.0, [sample(3_000, 11_000)])  # consumed 30/s, produced 10/s, lag 8,000: gone in 400 s
    trend = history.trend("g")
    assert trend is not None and trend.catch_up_s == 400.0
    assert trend.short() == "produced 10/s, consumed 30/s · catching up, lag gone in ~6m 40s"


def test_no_verdict_before_the_window_is_long_enough() -> None:
    history = LagHistory(window_s=300)
    history.add(0.0, [sample(0, 100)])
    history.add(20.0, [sample(0, 700)])
    trend = history.trend("g")
    assert trend is not None and trend.direction == MEASURING and trend.catch_up_s is None
    assert trend.short() == "produced 30/s, consumed 0/s · measuring (20s of 1m 0s)"
    history.add(MIN_WINDOW_S, [sample(0, 1900)])
    trend = history.trend("g")
    assert trend is not None and trend.direction == FALLING_BEHIND


def test_the_verdict_does_not_flip_on_commit_bursts() -> None:
    """Producers write 30/s steadily; the group consumes 36/s on average but commits every 15 s in one burst
    (as auto-commit does), and the console samples every 5 s: samples alone swing between 0/s and 108/s."""
    history = LagHistory(window_s=300)
    verdicts = []
    for step in range(0, 160):  # 800 s, one sample every 5 s
        at = step * 5.0
        committed = int(at // 15) * 15 * 36  # what the last burst committed
        end = 100_000 + int(at * 30)
        history.add(at, [sample(committed, end)])
        trend = history.trend("g")
        if trend is not None and trend.direction != MEASURING:
            verdicts.append(trend.direction)
    assert verdicts and set(verdicts) == {CATCHING_UP}


@pytest.mark.parametrize(
    ("consumed", "produced", "previous", "expected"),
    [
        (115.0, 100.0, STEADY, CATCHING_UP),  # 13 % faster: enters
        (105.0, 100.0, STEADY, STEADY),  # 5 %: not enough to enter
        (105.0, 100.0, CATCHING_UP, CATCHING_UP),  # 5 %: not enough to leave
        (101.0, 100.0, CATCHING_UP, STEADY),  # within 2 %: leaves
        (95.0, 100.0, CATCHING_UP, STEADY),  # losing a little: no longer catching up, not yet falling behind
        (95.0, 100.0, FALLING_BEHIND, FALLING_BEHIND),
        (85.0, 100.0, CATCHING_UP, FALLING_BEHIND),
        (0.0, 0.0, CATCHING_UP, STEADY),
    ],
)
def test_the_verdict_moves_with_hysteresis(consumed: float, produced: float, previous: str, expected: str) -> None:
    assert raw_verdict(consumed, produced, previous) == expected


def test_no_rate_without_a_partition_known_in_both_samples() -> None:
    history = LagHistory()
    history.add(0.0, [sample(10, 20)])
    unknown = GroupLag("g", "kafka", "Stable", partitions=(PartitionLag("t", 0, 10, None, unknown="leader down"),))
    history.add(100.0, [unknown])
    assert history.trend("g") is None  # never "0/s": nothing was measured


def test_catch_up_estimate() -> None:
    assert catch_up_seconds(1000, 30.0, 10.0) == 50.0
    assert catch_up_seconds(1000, 10.0, 30.0) is None
    assert catch_up_seconds(0, 0.0, 5.0) == 0.0
    assert catch_up_seconds(None, 30.0, 10.0) is None


def test_trend_forgets_groups_that_are_gone() -> None:
    history = LagHistory()
    history.add(0.0, [sample(1, 2)])
    history.add(100.0, [sample(1, 2)])
    history.add(200.0, [])
    assert history.trend("g") is None


def test_an_older_read_finishing_late_is_not_a_sample() -> None:
    history = LagHistory()
    history.add(0.0, [sample(0, 0)])
    history.add(100.0, [sample(1000, 1000)])
    history.add(50.0, [sample(0, 0)])  # started before the previous one
    trend = history.trend("g")
    assert trend is not None and trend.consumed_per_s == 10.0
