"""A program the person must see: a worktree's setup shell (`git/setup_shell.py`), a CLI's sign-in
(`sign_in_cell.py`), a profile's test run (`profile_trial.py`). It is shown in the first empty cell of the
active layout, else in a new cell beside the agent's cell it is for (or `beside`, or the last cell) — one saved
change of the layout; with no cell at all, it runs in the background."""

from __future__ import annotations

from idea.application.agents.placement_rules import split_target
from idea.application.agents.ports import AgentProject
from idea.domain import layout as lay
from idea.domain.ids import AgentId, NodeId, SessionId


async def show_beside_agent(
    project: AgentProject, session_id: SessionId, agent_id: AgentId, beside: NodeId | None
) -> NodeId | None:
    """The cell now showing the session; None when there was no cell to show it in."""
    pinned = lay.leaf_pinning_agent(project.active.root, agent_id)
    return await show_beside(project, session_id, pinned.id if pinned is not None else beside)


async def show_beside(project: AgentProject, session_id: SessionId, beside: NodeId | None) -> NodeId | None:
    """The cell now showing the session (the first empty one, else a new one beside `beside` or the last
    cell); None when there was no cell to show it in."""
    root = project.active.root
    empty = lay.first_empty_leaf(root)
    ops: list[lay.LayoutOp] = []
    if empty is not None:
        leaf_id = empty.id
    else:
        target = split_target(root, beside)
        if target is None:
            return None
        leaf_id = project.ids.new_id()
        ops.append(lay.SplitCell(target, lay.Direction.ROW, "after", leaf_id))
    ops.append(lay.SetSession(leaf_id, session_id))
    await project.change_layout(ops)
    return leaf_id
