"""The wait-for graph and its cycle guard (spec 03 §7.4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from idea.domain.wait_for import WaitForGraph


def test_a_chain_a_b_c_is_allowed() -> None:
    graph = WaitForGraph()
    assert not graph.would_cycle("A", "B")
    graph.add("A", "B")
    assert not graph.would_cycle("B", "C")


def test_b_asking_a_is_refused_while_a_waits_on_b_and_allowed_after() -> None:
    graph = WaitForGraph()
    graph.add("A", "B")
    assert graph.would_cycle("B", "A")
    assert graph.path("B", "A") is None  # B does not wait on A: the cycle is A's wait on B
    assert graph.path("A", "B") == ["A", "B"]

    graph.remove("A", "B")

    assert not graph.would_cycle("B", "A")


def test_a_longer_cycle_is_found_with_its_chain() -> None:
    graph = WaitForGraph()
    graph.add("A", "B")
    graph.add("B", "C")

    assert graph.would_cycle("C", "A")
    assert graph.path("A", "C") == ["A", "B", "C"]


def test_asking_yourself_is_a_cycle() -> None:
    assert WaitForGraph().would_cycle("A", "A")


def test_edges_are_counted_so_two_asks_to_one_target_need_two_removals() -> None:
    graph = WaitForGraph()
    graph.add("A", "B")
    graph.add("A", "B")
    graph.remove("A", "B")
    assert graph.would_cycle("B", "A")
    graph.remove("A", "B")
    assert not graph.would_cycle("B", "A")


def test_transitive_waits_exclude_the_agent_itself() -> None:
    graph = WaitForGraph()
    graph.add("A", "B")
    graph.add("B", "C")
    graph.add("B", "D")

    assert graph.transitively_waited("A") == {"B", "C", "D"}
    assert graph.transitively_waited("C") == set()


@given(st.lists(st.tuples(st.sampled_from("ABCDE"), st.sampled_from("ABCDE")), max_size=30))
def test_adding_only_the_edges_the_guard_allows_keeps_the_graph_acyclic(asks: list[tuple[str, str]]) -> None:
    graph = WaitForGraph()
    added = []
    for requester, target in asks:
        if not graph.would_cycle(requester, target):
            graph.add(requester, target)
            added.append((requester, target))
    for requester, target in added:
        assert graph.path(target, requester) is None
