"""The wait-for graph of delegations (spec 03 §7.4): an edge `requester → target` for every ask in flight.

An ask that would close a cycle is refused before anything is launched or queued, so agents can never wait
on each other forever. Edges are counted: one requester may hold two asks to the same target at once.
"""

from __future__ import annotations

from collections import Counter, deque

from idea.domain.ids import AgentId


class WaitForGraph:
    def __init__(self) -> None:
        self._edges: Counter[tuple[AgentId, AgentId]] = Counter()

    def add(self, requester: AgentId, target: AgentId) -> None:
        self._edges[(requester, target)] += 1

    def remove(self, requester: AgentId, target: AgentId) -> None:
        edge = (requester, target)
        if self._edges[edge] <= 1:
            del self._edges[edge]
        else:
            self._edges[edge] -= 1

    def waits_on(self, agent: AgentId) -> set[AgentId]:
        """The agents `agent` directly waits on."""
        return {target for (requester, target) in self._edges if requester == agent}

    def path(self, start: AgentId, goal: AgentId) -> list[AgentId] | None:
        """The shortest chain of waits from `start` to `goal` (both included), None when there is none."""
        previous: dict[AgentId, AgentId | None] = {start: None}
        pending = deque([start])
        while pending:
            agent = pending.popleft()
            if agent == goal:
                chain = [agent]
                while (before := previous[chain[-1]]) is not None:
                    chain.append(before)
                return chain[::-1]
            for following in sorted(self.waits_on(agent)):
                if following not in previous:
                    previous[following] = agent
                    pending.append(following)
        return None

    def would_cycle(self, requester: AgentId, target: AgentId) -> bool:
        """True for a self-ask, or when `target` already waits (transitively) on `requester`."""
        return requester == target or self.path(target, requester) is not None

    def transitively_waited(self, agent: AgentId) -> set[AgentId]:
        """Every agent `agent` waits on, directly or through others (itself excluded)."""
        seen: set[AgentId] = set()
        pending = [agent]
        while pending:
            for following in self.waits_on(pending.pop()):
                if following not in seen and following != agent:
                    seen.add(following)
                    pending.append(following)
        return seen
