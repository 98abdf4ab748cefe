"""What the Agents panel reads from the core besides the events: every agent's template link, queue and
live-state row, and which running agents' context changed since they started. Reads are asynchronous; an
answer about a project the panel no longer shows, or one overtaken by a newer read, is dropped."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from idea.application.agents.agent_activity import WorkRow
from idea.application.agents.launch_context import ContextChange
from idea.application.agents.templates import TemplateStatus
from idea.application.sign_in import SignInCheck
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import AgentQueueSnapshot
from idea.ui.agents.team_model import TeamModel
from idea.ui.core_client import CoreClient


class TeamFeed:
    def __init__(
        self, client: CoreClient, model: TeamModel, redraw: Callable[[], None], problem: Callable[[str], None]
    ) -> None:
        self._client = client
        self._model = model
        self._redraw = redraw
        self._problem = problem  # one line for the status bar
        self._template_generation = 0
        self._context_generation = 0
        self._sign_in_generation = 0
        self._orchestration_generation = 0
        self._work_read_running = False
        self._work_read_again = False

    def read_template_links(self) -> None:
        runtime = self._model.runtime
        if runtime is None:
            return
        self._template_generation += 1
        generation = self._template_generation

        def arrived(links: dict[AgentId, TemplateStatus]) -> None:
            if generation == self._template_generation and runtime is self._model.runtime:
                self._model.template_links = links
                self._redraw()

        self._client.call(
            runtime.agents.template_statuses(),
            on_done=arrived,
            on_error=lambda error: self._problem(f"Template links unavailable: {error}"),
        )

    def read_context_changes(self) -> None:
        """Compare what each running agent was launched with and what a launch would give it now."""
        runtime = self._model.runtime
        if runtime is None:
            return
        self._context_generation += 1
        generation = self._context_generation

        def arrived(changes: Mapping[AgentId, ContextChange]) -> None:
            if generation == self._context_generation and runtime is self._model.runtime:
                self._model.context_changes = changes
                self._redraw()

        self._client.call(
            runtime.runner.context_changes(),
            on_done=arrived,
            on_error=lambda error: self._problem(f"Could not tell whether agents' context changed: {error}"),
        )

    def read_sign_ins(self) -> None:
        """Which agents' CLIs have no credentials (spec 02 §13.3): a login may have been made or lost anywhere."""
        runtime = self._model.runtime
        if runtime is None:
            return
        self._sign_in_generation += 1
        generation = self._sign_in_generation

        def arrived(signed_out: Mapping[AgentId, SignInCheck]) -> None:
            if generation == self._sign_in_generation and runtime is self._model.runtime:
                self._model.signed_out = signed_out
                self._redraw()

        self._client.call(
            runtime.runner.signed_out(),
            on_done=arrived,
            on_error=lambda error: self._problem(f"Could not tell which agents are signed in: {error}"),
        )

    def read_orchestration(self) -> None:
        """Read every queue and live-state row again (events keep them current afterwards)."""
        runtime = self._model.runtime
        if runtime is None:
            return
        self._orchestration_generation += 1
        generation = self._orchestration_generation

        def arrived(state: tuple[tuple[AgentQueueSnapshot, ...], Mapping[AgentId, WorkRow]]) -> None:
            if generation == self._orchestration_generation and runtime is self._model.runtime:
                snapshots, work = state
                self._model.activity.load(snapshots, work, runtime.clock.now_ms())
                self._redraw()

        def limits_arrived(events: list[tuple[object, int]]) -> None:
            if generation == self._orchestration_generation and runtime is self._model.runtime:
                for event, at_ms in events:  # usage limits and open human nets, known only from events
                    self._model.activity.apply(event, at_ms)
                self._redraw()

        self._client.call(
            runtime.requests.orchestration_state(),
            on_done=arrived,
            on_error=lambda error: self._problem(f"Agent queues unavailable: {error}"),
        )
        self._client.call(
            runtime.limit_requests.state(),
            on_done=limits_arrived,
            on_error=lambda error: self._problem(f"Usage limits unavailable: {error}"),
        )

    def read_work_rows(self) -> None:
        """One live-state read at a time; changes during a read are picked up by one more read."""
        runtime = self._model.runtime
        if runtime is None:
            return
        if self._work_read_running:
            self._work_read_again = True
            return
        self._work_read_running = True

        def finished() -> None:
            self._work_read_running = False
            if self._work_read_again:
                self._work_read_again = False
                self.read_work_rows()

        def arrived(work: Mapping[AgentId, WorkRow]) -> None:
            if runtime is self._model.runtime:
                self._model.activity.set_work(work)
                self._redraw()
            finished()

        def failed(error: BaseException) -> None:
            self._problem(f"Live-state unavailable: {error}")
            finished()

        self._client.call(runtime.requests.work_rows(), on_done=arrived, on_error=failed)
