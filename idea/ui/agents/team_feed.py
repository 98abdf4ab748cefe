"""What the Agents panel reads from the core besides the events: every agent's template link, queue and
live-state row, which running agents' context changed since they started, and whose CLI is not signed in. Reads are asynchronous; an
answer about a project the panel no longer shows, or one overtaken by a newer read, is dropped."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from idea.application.agents.agent_activity import WorkRow
from idea.application.agents.launch_context import ContextChange
from idea.application.agents.templates import TemplateStatus
from idea.application.projects import ProjectRuntime
from idea.application.sign_in import SignInCheck
from idea.domain.ids import AgentId
from idea.domain.orchestration.events import AgentQueueSnapshot
from idea.ui.agents.team_model import TeamModel
from idea.ui.core_client import CoreClient

T = TypeVar("T")


class TeamFeed:
    def __init__(
        self, client: CoreClient, model: TeamModel, redraw: Callable[[], None], problem: Callable[[str], None]
    ) -> None:
        self._client = client
        self._model = model
        self._redraw = redraw
        self._problem = problem  # one line for the status bar
        self._generations: dict[str, int] = {}  # per kind of read, the latest one submitted
        self._orchestration_generation = 0
        self._work_read_running = False
        self._work_read_again = False

    def read_template_links(self) -> None:
        def keep(links: dict[AgentId, TemplateStatus]) -> None:
            self._model.template_links = links

        self._latest("templates", lambda runtime: runtime.agents.template_statuses(), keep,
                     "Template links unavailable")

    def read_context_changes(self) -> None:
        """Compare what each running agent was launched with and what a launch would give it now."""
        def keep(changes: Mapping[AgentId, ContextChange]) -> None:
            self._model.context_changes = changes

        self._latest("context", lambda runtime: runtime.runner.context_changes(), keep,
                     "Could not tell whether agents' context changed")

    def read_sign_ins(self) -> None:
        """Which agents' CLIs have no credentials (spec 02 §13.3): a login may have been made or lost anywhere."""
        def keep(signed_out: Mapping[AgentId, SignInCheck]) -> None:
            self._model.signed_out = signed_out

        self._latest("sign-ins", lambda runtime: runtime.runner.signed_out(), keep,
                     "Could not tell which agents are signed in")

    def _latest(
        self, kind: str, read: Callable[[ProjectRuntime], Coroutine[Any, Any, T]], keep: Callable[[T], None],
        failure: str,
    ) -> None:
        """Submit a read of the shown project; only the answer of the latest read of that `kind` is kept, and
        the panel drawn again."""
        runtime = self._model.runtime
        if runtime is None:
            return
        generation = self._generations[kind] = self._generations.get(kind, 0) + 1

        def arrived(answer: T) -> None:
            if generation == self._generations[kind] and runtime is self._model.runtime:
                keep(answer)
                self._redraw()

        self._client.call(read(runtime), on_done=arrived, on_error=lambda error: self._problem(f"{failure}: {error}"))

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
