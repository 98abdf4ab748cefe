"""The Agents panel's gestures on running agents: where an agent runs (launch here, in a new split, in the
background; show, attach, send to the background, stop — each one call to the placement service) and what
it is asked (send a task, interrupt, cancel a ticket, deliver a waiting task now — the person's requests).
A gesture acts on the panel's selected agent, or on the agent it is given (a cell's menu names its agent)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt

from idea.application.agents.agent_rows import AgentRow
from idea.application.agents.placement_rules import InBackground, InCell, InNewSplit
from idea.application.agents.sign_in_cell import open_sign_in
from idea.application.orchestrator.ports import LiveAgent
from idea.application.projects import ProjectRuntime
from idea.domain.ids import AgentId, NodeId, TicketId
from idea.domain.session import SessionKind
from idea.domain.wording import capitalized
from idea.ui.agents.gestures import GestureContext
from idea.ui.agents.send_task_dialog import SendTaskDialog
from idea.ui.agents.worktree_gestures import WorktreeGestures
from idea.ui.foreground import program_in_front
from idea.ui.widgets.messages import ask


class RunGestures:
    def __init__(self, context: GestureContext, worktrees: WorktreeGestures) -> None:
        self._ctx = context
        self._worktrees = worktrees  # a launch whose worktree folder is missing asks what to do

    # -- where the agent runs --

    def activate(self, agent_id: AgentId | None) -> None:
        """Double-click or Enter: go to a visible agent, show a background one, launch a stopped one —
        in its previous cell, the active cell, the first free cell, or a new split, in that order."""
        model = self._ctx.model
        row, runtime = model.row(agent_id), model.runtime
        if row is None or runtime is None:
            return
        if row.in_cell and row.session_id is not None:
            self._go_to(row)
            return
        failure = f"Cannot show {row.name}" if row.in_background else f"Cannot launch {row.name}"
        active = model.active_cell()
        self._launch(row, runtime, failure, lambda: runtime.placement.show(row.agent_id, active), self._shown)

    def launch_here(self) -> None:
        selection, leaf_id = self._ctx.selection(), self._ctx.model.active_cell()
        if selection is None or leaf_id is None:
            return
        row, runtime = selection
        self._into_active_cell(
            row, leaf_id, f"Cannot launch {row.name}", lambda: runtime.placement.launch(row.agent_id, InCell(leaf_id))
        )

    def launch_in_new_split(self) -> None:
        selection, beside = self._ctx.selection(), self._ctx.model.split_target()
        if selection is None or beside is None:
            return
        row, runtime = selection
        self._launch(row, runtime, f"Cannot launch {row.name}",
                     lambda: runtime.placement.launch(row.agent_id, InNewSplit(beside)), self._shown)

    def launch_in_background(self) -> None:
        selection = self._ctx.selection()
        if selection is None:
            return
        row, runtime = selection
        self._launch(row, runtime, f"Cannot launch {row.name}",
                     lambda: runtime.placement.launch(row.agent_id, InBackground()),
                     self._ctx.done(f"{row.name} is running in the background"))

    def attach_to_active_cell(self) -> None:
        selection, leaf_id = self._ctx.selection(), self._ctx.model.active_cell()
        if selection is None or leaf_id is None or not selection[0].in_background:
            return
        row, runtime = selection
        self._into_active_cell(
            row, leaf_id, f"Cannot attach {row.name}", lambda: runtime.placement.attach(row.agent_id, InCell(leaf_id))
        )

    def send_to_background(self, agent_id: AgentId | None = None) -> None:
        selection = self._ctx.selection(agent_id)
        if selection is None or not selection[0].in_cell:
            return
        row, runtime = selection
        self._ctx.run(f"Cannot move {row.name}", runtime.placement.send_to_background(row.agent_id),
                      self._ctx.done(f"{row.name} keeps running in the background"))

    def stop(self, agent_id: AgentId | None = None) -> None:
        selection = self._ctx.selection(agent_id)
        if selection is None or not selection[0].is_live:
            return
        row, runtime = selection
        self._ctx.run(f"Cannot stop {row.name}", runtime.placement.stop(row.agent_id),
                      self._ctx.done(f"{row.name} stopped"))

    def restart_to_apply(self) -> None:
        """Stop the agent and start it again where it runs (its cell, or the background), so that it reads its
        changed persona, skills, project context or profile."""
        selection = self._ctx.selection()
        if selection is None or not selection[0].context_text:
            return
        row, runtime = selection
        self._launch(row, runtime, f"Cannot restart {row.name}",
                     lambda: runtime.placement.relaunch(row.agent_id, "context changed"),
                     self._ctx.done(f"{row.name} restarted with its current context"))

    def sign_in(self, agent_id: AgentId | None = None) -> None:
        """Run the agent's CLI sign-in in a cell beside it (spec 02 §13.3 rule 5); the agent itself is started
        afterwards, by the person."""
        selection = self._ctx.selection(agent_id)
        if selection is None or not selection[0].can_sign_in:
            return
        row, runtime = selection
        cli = row.sign_in.cli if row.sign_in is not None else "its CLI"
        self._ctx.run(
            f"Cannot sign {row.name} in",
            open_sign_in(runtime, runtime.runner, row.agent_id, self._ctx.model.active_cell()),
            self._ctx.done(f"Sign in to {cli} in the new cell, then start {row.name}"),
        )

    def focus(self) -> None:
        row = self._ctx.model.row(self._ctx.selected_agent())
        if row is not None and row.in_cell and row.session_id is not None:
            self._go_to(row)

    def open_conversation(self, agent_id: AgentId | None = None) -> None:
        """Read the conversation between the person and the agent (the selected one by default): the viewer, in
        the grid's place."""
        agent_id = agent_id or self._ctx.selected_agent()
        if agent_id is not None:
            self._ctx.host.open_agent_conversation(agent_id)

    # -- what the agent is asked --

    def send_task(self) -> SendTaskDialog | None:
        selection = self._ctx.selection()
        if selection is None:
            return None
        row, runtime = selection
        dialog = SendTaskDialog(self._ctx.client, runtime, row.name, running=row.is_live, parent=self._ctx.widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        starting = "" if row.is_live else "; it is starting"
        dialog.sent.connect(self._ctx.done(f"Task sent to {row.name}{starting}"))
        dialog.open()
        return dialog

    def interrupt(self, agent_id: AgentId | None = None) -> None:
        selection = self._ctx.selection(agent_id)
        if selection is None or not selection[0].is_live:
            return
        row, runtime = selection
        self._ctx.run(f"Cannot interrupt {row.name}", runtime.requests.interrupt(row.name),
                      self._ctx.done(f"Esc sent to {row.name}"))

    def cancel_ticket(self, ticket_id: TicketId) -> None:
        """The ticket leaves the queue; its requester, if an agent, is told the person cancelled it."""
        model = self._ctx.model
        runtime = model.runtime
        if runtime is None:
            return
        queued = model.activity.find_ticket(ticket_id)

        def cancelled(detail: str) -> None:
            if queued is None:
                self._ctx.status(capitalized(detail))
            else:
                agent_id, ticket = queued
                self._ctx.status(f"Cancelled the ticket from {ticket.requester_label} to {model.name(agent_id)}")

        self._ctx.run("Cannot cancel the ticket", runtime.requests.cancel_ticket(ticket_id), cancelled)

    def deliver_now(self, ticket_id: TicketId) -> None:
        """"Deliver now (clears your line)": what the person typed on the agent's line is erased and the
        waiting task is typed."""
        model = self._ctx.model
        runtime = model.runtime
        if runtime is None:
            return
        agent_id = model.activity.delivery_forced(ticket_id)
        self._ctx.redraw()
        name = model.name(agent_id) if agent_id else "the agent"
        self._ctx.run("Cannot deliver the task", runtime.requests.deliver_now(ticket_id),
                      self._ctx.done(f"Typing the waiting task into {name}'s terminal"))

    # -- its usage limit --

    def cancel_resume(self, agent_id: AgentId | None = None) -> None:
        selection = self._ctx.selection(agent_id)
        if selection is None:
            return
        row, runtime = selection

        def cancelled(done: bool) -> None:
            self._ctx.status(
                f"Automatic resume of {row.name} cancelled" if done else f"{row.name} had no automatic resume to cancel"
            )

        self._ctx.run(f"Cannot cancel the resume of {row.name}", runtime.limit_requests.cancel_resume(row.agent_id),
                      cancelled)

    def resume_now(self, agent_id: AgentId | None = None) -> None:
        selection = self._ctx.selection(agent_id)
        if selection is None:
            return
        row, runtime = selection
        limit = row.activity.limit
        if limit is not None and limit.fire_at_ms is None:
            # Cancelled or never armed: resume now is "resume at now".
            work = runtime.limit_requests.resume_at(row.agent_id, runtime.clock.now_ms())
        else:
            work = runtime.limit_requests.resume_now(row.agent_id)
        self._ctx.run(f"Cannot resume {row.name}", work, self._ctx.done(f"Resuming {row.name}"))

    def resume_at(self, agent_id: AgentId, epoch_ms: int) -> None:
        """The human net's "Resume at this time"."""
        row, runtime = self._ctx.model.row(agent_id), self._ctx.model.runtime
        if row is None or runtime is None:
            return
        self._ctx.model.activity.dismiss_human_net(agent_id)
        self._ctx.redraw()
        self._ctx.run(f"Cannot schedule the resume of {row.name}", runtime.limit_requests.resume_at(agent_id, epoch_ms),
                      self._ctx.done(f"{row.name} will be resumed at the time you gave"))

    def dismiss_human_net(self, agent_id: AgentId) -> None:
        """ "Not a limit — dismiss" or "Keep waiting": nothing is armed."""
        row, runtime = self._ctx.model.row(agent_id), self._ctx.model.runtime
        if row is None or runtime is None:
            return
        self._ctx.model.activity.dismiss_human_net(agent_id)
        self._ctx.redraw()
        self._ctx.run("Cannot dismiss", runtime.limit_requests.dismiss(agent_id), lambda _r: None)

    def interrupt_agent(self, agent_id: AgentId) -> None:
        row, runtime = self._ctx.model.row(agent_id), self._ctx.model.runtime
        if row is None or runtime is None or not row.is_live:
            return
        self._ctx.model.activity.dismiss_human_net(agent_id)
        self._ctx.redraw()
        self._ctx.run("Cannot dismiss", runtime.limit_requests.dismiss(agent_id), lambda _r: None)  # the person took over
        self._ctx.run(f"Cannot interrupt {row.name}", runtime.requests.interrupt(row.name),
                      self._ctx.done(f"Esc sent to {row.name}"))

    # -- helpers --

    def _go_to(self, row: AgentRow) -> None:
        if row.session_id is not None:
            self._ctx.host.focus_session(row.session_id)
            self._ctx.agent_focused(row.agent_id)

    def _shown(self, live: LiveAgent) -> None:
        if live.node_id is not None:
            self._ctx.host.focus_session(live.session_id)

    def _launch(
        self, row: AgentRow, runtime: ProjectRuntime, failure_title: str,
        work: Callable[[], Coroutine[Any, Any, Any]], on_done: Callable[[Any], None],
    ) -> None:
        """Submit a launch; when the agent's worktree folder is missing the person chooses (recreate it, or run
        in the main tree) and the same launch runs again."""
        self._ctx.client.call(
            work(), on_done=on_done,
            on_error=lambda error: self._worktrees.launch_failed(
                row, runtime, failure_title, lambda: self._launch(row, runtime, failure_title, work, on_done), error
            ),
        )

    def _into_active_cell(
        self, row: AgentRow, leaf_id: NodeId, failure_title: str, work: Callable[[], Coroutine[Any, Any, LiveAgent]]
    ) -> None:
        """Run `work` in the active cell, asking first when a program is busy in that cell's shell."""
        model = self._ctx.model
        session = model.live_session_in(leaf_id)
        busy = (
            program_in_front(model.runtime, session.id)
            if model.runtime is not None and session is not None and session.kind is SessionKind.SHELL
            else None
        )
        runtime = model.runtime
        if runtime is None:
            return
        if busy is None:
            self._launch(row, runtime, failure_title, work, self._shown)
            return
        ask(self._ctx.widget, "Replace the shell", f"{busy} is running in the active cell's shell.",
            "Stop it and continue", lambda: self._launch(row, runtime, failure_title, work, self._shown),
            informative=f"{row.name} takes this cell; the shell and {busy} are stopped.", destructive=True)
