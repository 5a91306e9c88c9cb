"""core.traffic.rates: a rate from two readings of a growing counter, over hostile sequences (restarts,
truncation, recreated topics, clocks that do not move), never negative, never a zero that means unknown."""

from __future__ import annotations

import itertools

import pytest

from core.traffic.rates import Rate, Reading, per_hour, rate, time_to_full, total, unknown


def test_a_rate_is_the_delta_over_the_window_dated_by_the_later_reading() -> None:
    r = rate(Reading(100, 1_000), Reading(400, 31_000))
    assert r == Rate(10.0, 30.0, 31_000) and not r.idle


def test_nothing_moved_is_idle_a_known_zero() -> None:
    r = rate(Reading(100, 1_000), Reading(100, 31_000))
    assert r.per_s == 0.0 and r.idle and r.unknown is None and r.window_s == 30.0


@pytest.mark.parametrize(
    ("before", "after"),
    [(500, 0), (500, 499), (2**40, 3)],  # a restart that lost the log, a truncation, a recreated topic
)
def test_a_counter_that_goes_back_restarts_the_rate_never_negative(before: int, after: int) -> None:
    r = rate(Reading(before, 0), Reading(after, 10_000), "the high watermark of t-0")
    assert r.per_s is None and not r.idle
    assert r.unknown == (
        f"the high watermark of t-0 went back from {before:,} to {after:,}; the rate restarts from this reading"
    )
    # the next window starts from the later reading
    assert rate(Reading(after, 10_000), Reading(after + 50, 20_000)).per_s == 5.0


def test_a_hostile_sequence_gives_only_known_non_negative_rates_or_reasons() -> None:
    values = [0, 10, 10, 5, 5, 1_000_000, 0, 0, 3]
    readings = [Reading(v, i * 1000) for i, v in enumerate(values)]
    rates = [rate(a, b) for a, b in itertools.pairwise(readings)]
    assert [r.per_s for r in rates] == [10.0, 0.0, None, 0.0, 999_995.0, None, 0.0, 3.0]
    assert all(r.unknown for r in rates if r.per_s is None)


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        (None, Reading(1, 1), "t was read once; a rate needs two readings"),
        (Reading(1, 1), None, "t was not read"),
        (Reading(1, 5), Reading(9, 5), "t was read twice at the same time; a rate needs a window"),
        (Reading(1, 6), Reading(9, 5), "t was read twice at the same time; a rate needs a window"),  # clock back
    ],
)
def test_missing_readings_and_no_window_are_unknown_with_why(
    before: Reading | None, after: Reading | None, why: str
) -> None:
    assert rate(before, after, "t") == unknown(why)


def test_a_sum_is_unknown_when_one_part_is_never_a_partial_sum() -> None:
    parts = [Rate(2.0, 30.0, 10), unknown("broker 2 is down"), Rate(1.0, 31.0, 12), unknown("x")]
    r = total(parts, "partition")
    assert r.per_s is None and r.unknown == "broker 2 is down (and 1 more partitions unknown)"
    known = total([Rate(2.0, 30.0, 10), Rate(1.0, 31.0, 12)])
    assert known == Rate(3.0, 31.0, 12)
    assert total([]) == Rate(0.0) and total([]).idle


def test_time_until_full_needs_free_space_and_growth() -> None:
    assert time_to_full(3600, Rate(1.0, 30.0, 1)).seconds == 3600.0
    assert time_to_full(None, Rate(1.0)).why == (
        "the broker does not report the volume's free space (DescribeLogDirs v4, Kafka 3.3+)"
    )
    assert time_to_full(10, Rate(0.0)).why == "not growing"
    assert time_to_full(10, unknown("broker 1 is down")).why == "growth unknown: broker 1 is down"
    assert per_hour(Rate(2.0)) == 7200.0 and per_hour(unknown("x")) is None
