"""The history graph's lanes: straight history, a branch and its merge, octopus merges, pages that continue."""

from __future__ import annotations

from idea.domain.git.graph import GraphRow, layout


def test_a_straight_history_stays_in_lane_zero() -> None:
    rows, lanes = layout([("c", ["b"]), ("b", ["a"]), ("a", [])])
    assert [r.column for r in rows] == [0, 0, 0]
    assert rows[0].top == () and rows[0].bottom == ((0, 0),)
    assert rows[1].top == ((0, 0),) and rows[1].bottom == ((0, 0),)
    assert rows[2].bottom == () and lanes == ()


def test_a_merge_opens_a_lane_for_its_second_parent_which_joins_back_at_the_fork() -> None:
    # m merges s (side) into b; s and b both come from a.
    rows, lanes = layout([("m", ["b", "s"]), ("s", ["a"]), ("b", ["a"]), ("a", [])])
    m, s, b, a = rows
    assert m.column == 0 and m.bottom == ((0, 0), (0, 1)) and m.merge
    assert s.column == 1 and s.top == ((0, 0), (1, 1))
    assert s.bottom == ((0, 0), (1, 1))  # s continues to a in its lane, b's lane passes by
    assert b.column == 0 and b.top == ((0, 0), (1, 1))
    assert b.bottom == ((0, 0), (1, 1))  # both lanes expect a now
    assert a.column == 0 and a.top == ((0, 0), (1, 0))  # the side lane joins a
    assert lanes == ()


def test_a_branch_tip_that_nothing_points_to_gets_a_free_lane() -> None:
    rows, _ = layout([("x", ["a"]), ("y", ["a"]), ("a", [])])
    assert [r.column for r in rows] == [0, 1, 0]
    assert rows[1].top == ((0, 0),)  # y starts its own lane: nothing comes from above in lane 1
    assert rows[1].bottom == ((0, 0), (1, 1))  # y keeps its lane down to the fork
    assert rows[2].top == ((0, 0), (1, 0))  # where both lanes join


def test_an_octopus_merge_fans_out_to_three_lanes() -> None:
    rows, _ = layout([("o", ["a", "b", "c"]), ("c", ["r"]), ("b", ["r"]), ("a", ["r"]), ("r", [])])
    assert rows[0].bottom == ((0, 0), (0, 1), (0, 2))
    assert rows[-1].top == ((0, 0), (1, 0), (2, 0))
    assert all(isinstance(r, GraphRow) for r in rows)


def test_pages_continue_the_lanes_left_open() -> None:
    commits = [("m", ["b", "s"]), ("s", ["a"]), ("b", ["a"]), ("a", [])]
    whole, _ = layout(commits)
    first, open_lanes = layout(commits[:2])
    assert open_lanes == ("b", "a")
    second, _ = layout(commits[2:], open_lanes)
    assert first + second == whole
