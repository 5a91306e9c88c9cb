"""The fleet screen's rows (``core.fleet.board``): a cluster that stops answering keeps its last counts, turned
``stale since HH:MM:SS (reason)``; one that answers again is itself again; one never heard from says why."""

from __future__ import annotations

from core.fleet.board import FleetBoard
from core.fleet.row import OK, STALE, UNREACHABLE, FleetRow, no_answer, unreadable
from core.human_time import clock_text

AT = 1_700_000_000_000
SINCE = clock_text(AT + 5_000)  # HH:MM:SS, local time as the console shows it


def good(at: int = AT, topics: int = 5) -> FleetRow:
    return FleetRow("a", "zk:2181", OK, topics=topics, offline=0, at_ms=at)


def test_a_cluster_that_stops_answering_keeps_its_last_counts_and_says_since_when() -> None:
    board = FleetBoard()
    board.take(good())
    shown = board.take(no_answer("a", "zk:2181", 10, AT + 5_000))
    assert shown.state == STALE and shown.topics == 5 and shown.severity == 2
    assert board.state_text(shown) == f"stale since {SINCE} (no answer in 10 s)"
    later = board.take(unreadable("a", "zk:2181", UNREACHABLE, "refused", AT + 20_000))
    assert board.state_text(later) == f"stale since {SINCE} (unreachable)"  # since the first lost read
    assert later.reason == f"stale since {SINCE} (unreachable): refused"


def test_a_cluster_that_answers_again_is_itself_again() -> None:
    board = FleetBoard()
    board.take(good())
    board.take(no_answer("a", "zk:2181", 10, AT + 5_000))
    back = board.take(good(AT + 30_000, topics=6))
    assert (back.state, back.topics, board.state_text(back)) == (OK, 6, "ok")
    assert board.rows() == [back]


def test_a_cluster_never_heard_from_shows_its_reason() -> None:
    board = FleetBoard()
    row = board.take(no_answer("a", "zk:2181", 10, AT))
    assert board.state_text(row) == "no answer in 10 s" and row.topics is None
