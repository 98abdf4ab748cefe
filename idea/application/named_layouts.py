"""A project's named layouts: create, rename, duplicate, delete and switch them — each one saved change of
layouts.json — and what a layout needs when it is shown: a fresh shell (or nothing, as the person prefers)
in each new cell and in each cell naming a session of a previous run (a shell is never resumed: the cell
just keeps being a shell cell), while agent cells forget the dead session."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from idea.application.ports import IdGenerator
from idea.application.sessions import SessionRegistry
from idea.domain import layout as lay
from idea.domain.ids import LayoutId, NodeId, SessionId
from idea.domain.session import SessionInfo

DocumentChange = Callable[[lay.LayoutDocument], lay.LayoutDocument]


class LayoutsOwner(Protocol):
    """The project runtime, as its named layouts use it."""

    @property
    def document(self) -> lay.LayoutDocument: ...

    @property
    def sessions(self) -> SessionRegistry: ...

    @property
    def ids(self) -> IdGenerator: ...

    def store_document(self, document: lay.LayoutDocument) -> None:
        """Save the document (one change of layouts.json) and tell the windows."""
        ...

    async def start_shells(self, count: int) -> list[SessionInfo]:
        """Shells for new cells; none when the person prefers empty cells."""
        ...

    def release_unshown(self, session_id: SessionId) -> None: ...


class NamedLayouts:
    def __init__(self, owner: LayoutsOwner) -> None:
        self._owner = owner

    async def create(self, name: str) -> LayoutId:
        ids = self._owner.ids
        layout_id, leaf_id = ids.new_id(), ids.new_id()
        await self.show(
            lambda document: lay.set_active(lay.create_layout(document, layout_id, name, leaf_id), layout_id),
            new_cells=(leaf_id,),
        )
        return layout_id

    async def rename(self, layout_id: LayoutId, name: str) -> None:
        self._owner.store_document(lay.rename_layout(self._owner.document, layout_id, name))

    async def duplicate(self, layout_id: LayoutId, name: str) -> LayoutId:
        ids = self._owner.ids
        new_layout = ids.new_id()
        await self.show(
            lambda document: lay.set_active(
                lay.duplicate_layout(document, layout_id, new_layout, name, ids.new_id), new_layout
            )
        )
        return new_layout

    async def delete(self, layout_id: LayoutId) -> None:
        document = self._owner.document
        shown = {leaf.session for leaf in lay.leaves(document.layout(layout_id).root) if leaf.session}
        await self.show(lambda current: lay.delete_layout(current, layout_id))
        for session_id in shown:
            self._owner.release_unshown(session_id)

    async def activate(self, layout_id: LayoutId) -> None:
        """Switch layouts. Sessions of the old layout keep running in the background."""
        if layout_id == self._owner.document.active_id:
            return
        await self.show(lambda document: lay.set_active(document, layout_id))

    async def show(self, change: DocumentChange, new_cells: Sequence[NodeId] = ()) -> None:
        """Save `change(document)` as one change, with what the layout it shows needs (see above). Shells
        start first, then the change is applied to the document of that moment."""
        owner = self._owner
        shells = await owner.start_shells(len(self._cells_to_fill(change(owner.document).active, new_cells)))
        document = change(owner.document)
        ops: list[lay.LayoutOp] = [
            lay.SetSession(leaf.id, None) for leaf in lay.leaves(document.active.root) if self._names_dead(leaf)
        ]
        cells = self._cells_to_fill(document.active, new_cells)
        ops += [lay.SetSession(leaf_id, info.id) for leaf_id, info in zip(cells, shells, strict=False)]
        for info in shells[len(cells) :]:  # cells that went away meanwhile
            await owner.sessions.stop(info.id)
            owner.sessions.release(info.id)
        layout = document.active
        for op in ops:
            layout = lay.apply(layout, op, owner.ids.new_id).layout
        changed = lay.replace_layout(document, layout)
        if changed != owner.document:
            owner.store_document(changed)

    def _cells_to_fill(self, layout: lay.Layout, new_cells: Sequence[NodeId]) -> list[NodeId]:
        known = {leaf.id for leaf in lay.leaves(layout.root)}
        stale = [leaf.id for leaf in lay.leaves(layout.root) if self._names_dead(leaf) and leaf.agent is None]
        return [leaf_id for leaf_id in new_cells if leaf_id in known] + [i for i in stale if i not in new_cells]

    def _names_dead(self, leaf: lay.Leaf) -> bool:
        return leaf.session is not None and not self._owner.sessions.knows(leaf.session)
