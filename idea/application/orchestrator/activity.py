"""Proof of life of an agent (spec 03 §9.2, spec 05 §4): the activity tokens of the agent and of every agent
it transitively waits on, and the CPU time its processes used."""

from __future__ import annotations

from collections.abc import Collection

from idea.application.orchestrator.ports import ActivityProbe, AgentLifecycle, ProcessCpuProbe
from idea.application.orchestrator.rendezvous import ActivitySnapshot
from idea.application.ports import Diagnostics
from idea.domain.ids import AgentId
from idea.domain.wait_for import WaitForGraph


class ActivityTracker:
    def __init__(
        self,
        probe: ActivityProbe,
        graph: WaitForGraph,
        lifecycle: AgentLifecycle,
        cpu: ProcessCpuProbe | None,
        diagnostics: Diagnostics,
    ) -> None:
        self._probe = probe
        self._graph = graph
        self._lifecycle = lifecycle
        self._cpu = cpu
        self._diagnostics = diagnostics

    def of(self, agent_id: AgentId) -> ActivitySnapshot:
        """Tokens of the agent and of every agent it transitively waits on (§9.2, T13)."""
        return self.tokens_of({agent_id} | self._graph.transitively_waited(agent_id))

    def tokens_of(self, agents: Collection[AgentId]) -> ActivitySnapshot:
        tokens = {agent: self._token(agent) for agent in agents}
        return {agent: token for agent, token in tokens.items() if token is not None}

    def note_hook_event(self, agent_id: AgentId, transcript_path: str | None) -> None:
        self._probe.note_hook_event(agent_id, transcript_path)

    def cpu_seconds(self, agent_id: AgentId) -> float | None:
        live = self._lifecycle.live(agent_id)
        pid = live.terminal.pid() if live else None
        return self._cpu.descendant_cpu_seconds(pid) if self._cpu is not None and pid is not None else None

    def _token(self, agent_id: AgentId) -> int | None:
        try:
            return self._probe.token(agent_id)
        except Exception as exc:  # noqa: BLE001  (a broken probe must not stop the watchdog that bounds the ask)
            self._diagnostics.beacon(f"[rendezvous] activity probe failed agent={agent_id}: {exc!r}")
            return None  # no proof of life
