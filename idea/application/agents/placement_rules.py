"""Where an agent may be shown, decided on one gesture's planned change of the active layout: the places a
gesture names, the change itself (`LayoutChange`), and the rules — a running agent is shown by one cell at
most, a cell running another agent is never taken, an idle shell or an ended session gives way to the
person's gestures, a cell still showing the agent's ended run is freed when the agent goes elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from idea.application.sessions import SessionRegistry
from idea.domain import layout as lay
from idea.domain.errors import AppError, ErrorCode
from idea.domain.ids import AgentId, NodeId, SessionId
from idea.domain.session import SessionInfo, SessionKind


@dataclass(frozen=True)
class InCell:
    """A cell of the active layout."""

    leaf_id: NodeId


@dataclass(frozen=True)
class InNewSplit:
    """A new cell to the right of `beside`; it is not kept when the agent cannot be shown there."""

    beside: NodeId


@dataclass(frozen=True)
class InFirstEmptyCell:
    """The first empty cell of the active layout, else the background."""


@dataclass(frozen=True)
class InBackground:
    """No cell: the agent runs, and receives tasks, without a terminal on screen."""


Place = InCell | InNewSplit | InFirstEmptyCell | InBackground


@dataclass
class LayoutChange:
    """One gesture's change of the active layout: each operation is tried on a working copy (`layout`) when
    planned; `AgentPlacement._commit` applies them to the layout of that moment and saves once."""

    base: lay.Layout
    new_id: Callable[[], str]
    ops: list[lay.LayoutOp] = field(default_factory=list)
    split: lay.SplitCell | None = None  # a new cell for the agent, dropped when the agent cannot be shown
    released: list[SessionId] = field(default_factory=list)  # ended sessions to forget once unshown
    after: list[Callable[[], None]] = field(default_factory=list)  # bookkeeping once saved

    def __post_init__(self) -> None:
        self.layout = self.base

    def add(self, op: lay.LayoutOp) -> None:
        self.layout = lay.apply(self.layout, op, self.new_id).layout
        self.ops.append(op)

    def add_split(self, op: lay.SplitCell) -> None:
        self.add(op)
        self.split = op

    def drop_split(self) -> None:
        """Forget the new cell; operations that need it are planned only once the agent runs."""
        if self.split is None:
            return
        self.ops.remove(self.split)
        self.split = None
        self.layout = self.base
        for op in self.ops:
            self.layout = lay.apply(self.layout, op, self.new_id).layout

    def leaf(self, leaf_id: NodeId) -> lay.Leaf:
        return lay.find_leaf(self.layout.root, leaf_id)

    def release(self, session_id: SessionId | None) -> None:
        if session_id is not None:
            self.released.append(session_id)


class CellRules:
    def __init__(self, sessions: SessionRegistry, new_id: Callable[[], str]) -> None:
        self._sessions = sessions
        self._new_id = new_id

    def refuse_second_cell(self, change: LayoutChange, running: SessionInfo, where: Place, name: str) -> None:
        """One agent, one live session, shown by one cell at most."""
        shown = lay.leaf_showing_session(change.layout.root, running.id)
        if shown is None or isinstance(where, InBackground | InFirstEmptyCell):
            return
        if isinstance(where, InCell) and where.leaf_id == shown.id:
            return
        raise AppError(
            ErrorCode.AGENT_ALREADY_RUNNING,
            f"{name} is already running in another cell",
            data={"nodeId": shown.id},
        )

    def make_room(
        self, change: LayoutChange, agent_id: AgentId, where: Place, *, room: bool, running: bool
    ) -> tuple[NodeId | None, list[SessionId]]:
        """Plan the cell the agent goes to (None: the background) and return it with the idle shells that
        give way, for the caller to stop once every refusal is past. `room`: the person's gesture."""
        target: NodeId | None = None
        stopping: list[SessionId] = []
        match where:
            case InCell(leaf_id=leaf_id):
                target = leaf_id
                if room:
                    stopping = self._vacate(change, leaf_id, agent_id)
                elif not running:
                    self._require_free(change.leaf(leaf_id), agent_id)
            case InNewSplit(beside=beside):
                target = self._new_id()
                change.add_split(lay.SplitCell(beside, lay.Direction.ROW, "after", target))
            case InFirstEmptyCell() if not running:
                empty = lay.first_empty_leaf(change.layout.root)
                target = empty.id if empty is not None else None
        if room:
            self._unpin_elsewhere(change, agent_id, keep=target)
        return target, stopping

    def _vacate(self, change: LayoutChange, leaf_id: NodeId, agent_id: AgentId) -> list[SessionId]:
        """Empty a cell for the agent: its idle shell is to be stopped, an ended session dropped; another
        running agent is never displaced. Returns the sessions to stop."""
        leaf = change.leaf(leaf_id)
        session = leaf.session
        stopping = []
        if session is not None and self._sessions.is_live(session):
            info = self._sessions.info(session)
            if info.agent_id == agent_id:
                return []
            if info.kind is SessionKind.AGENT:
                raise AppError(
                    ErrorCode.INVALID,
                    f"{info.label} is running in that cell; choose another cell or launch in a new split",
                )
            stopping.append(session)
        if leaf.is_empty or (leaf.agent == agent_id and session is None):
            return stopping
        change.add(lay.ClearCell(leaf_id))
        change.release(session)
        return stopping

    def _require_free(self, leaf: lay.Leaf, agent_id: AgentId) -> None:
        if leaf.agent not in (None, agent_id) or (leaf.session is not None and self._sessions.is_live(leaf.session)):
            raise AppError(ErrorCode.INVALID, "that cell is not empty; choose an empty cell or a new split")

    def _unpin_elsewhere(self, change: LayoutChange, agent_id: AgentId, keep: NodeId | None) -> None:
        """A cell still showing the agent's ended run gives it up, so the agent can be shown somewhere else."""
        pinned = lay.leaf_pinning_agent(change.layout.root, agent_id)
        if pinned is None or pinned.id == keep:
            return
        if pinned.session is not None and self._sessions.is_live(pinned.session):
            return  # its own running session: refused before, by refuse_second_cell
        change.add(lay.ClearCell(pinned.id))
        change.release(pinned.session)


def leaf_or_none(root: lay.Node, leaf_id: NodeId) -> lay.Leaf | None:
    try:
        return lay.find_leaf(root, leaf_id)
    except AppError:
        return None


def free_cell(
    root: lay.Node, agent_id: AgentId, is_live: Callable[[SessionId], bool], *candidates: NodeId | None
) -> NodeId | None:
    """A cell the agent can take without stopping anything: the first free one of `candidates`, else the
    first free cell in reading order. Free = no running session and no other agent pinned."""

    def free(leaf: lay.Leaf | None) -> bool:
        return (
            leaf is not None
            and leaf.agent in (None, agent_id)
            and (leaf.session is None or not is_live(leaf.session))
        )

    for candidate in candidates:
        if candidate is not None and free(leaf_or_none(root, candidate)):
            return candidate
    return next((leaf.id for leaf in lay.leaves(root) if free(leaf)), None)


def runs_another_agent(
    root: lay.Node, leaf_id: NodeId, agent_id: AgentId | None, session_of: Callable[[SessionId], SessionInfo | None]
) -> bool:
    """The cell shows another agent's running session: the person's gestures never take it (the Agents panel
    disables "Launch here" and "Attach" there)."""
    leaf = leaf_or_none(root, leaf_id)
    session = session_of(leaf.session) if leaf is not None and leaf.session else None
    return (
        session is not None and session.is_live and session.kind is SessionKind.AGENT and session.agent_id != agent_id
    )


def split_target(root: lay.Node, active: NodeId | None) -> NodeId | None:
    """The cell a new split goes beside: the active one, else the last cell in reading order (the Agents
    panel enables "Launch in new split" with it)."""
    if active is not None and leaf_or_none(root, active) is not None:
        return active
    cells = lay.leaves(root)
    return cells[-1].id if cells else None
