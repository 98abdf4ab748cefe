"""The documents of a project tab: several named layouts, one of them active (spec 01 §5.2) — create,
rename, duplicate, delete, switch, and store a changed layout.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from idea.domain.errors import invalid, not_found
from idea.domain.layout.queries import leaves
from idea.domain.layout.tree import Grid, Layout, Leaf, Node, Split, UnknownNode, no_extra
from idea.domain.layout.tree_edits import substitute
from idea.domain.layout.validation import validate

MAX_NAME_LENGTH = 64


@dataclass(frozen=True)
class LayoutDocument:
    active_id: str
    layouts: tuple[Layout, ...]
    version: int = 1
    extra: Mapping[str, Any] = field(default_factory=no_extra, hash=False)

    @property
    def active(self) -> Layout:
        return self.layout(self.active_id)

    def layout(self, layout_id: str) -> Layout:
        for layout in self.layouts:
            if layout.id == layout_id:
                return layout
        raise not_found(f"layout {layout_id} not found", layoutId=layout_id)


def default_document(layout_id: str, leaf_id: str, name: str = "Default") -> LayoutDocument:
    return LayoutDocument(active_id=layout_id, layouts=(Layout(layout_id, name, Leaf(leaf_id)),))


def create_layout(document: LayoutDocument, layout_id: str, name: str, leaf_id: str) -> LayoutDocument:
    """Append a layout holding one empty cell; the active layout does not change."""
    _check_new_layout_id(document, layout_id)
    layout = Layout(layout_id, _checked_name(document, name), Leaf(leaf_id))
    return replace(document, layouts=(*document.layouts, layout))


def rename_layout(document: LayoutDocument, layout_id: str, name: str) -> LayoutDocument:
    layout = document.layout(layout_id)
    return _with_layout(document, replace(layout, name=_checked_name(document, name, renaming=layout_id)))


def duplicate_layout(
    document: LayoutDocument, layout_id: str, new_layout_id: str, name: str, new_id: Callable[[], str]
) -> LayoutDocument:
    """Append a copy with fresh node ids; agent pins and resume fields stay, live sessions do not."""
    source = document.layout(layout_id)
    _check_new_layout_id(document, new_layout_id)
    copy_of_source = replace(
        source,
        id=new_layout_id,
        name=_checked_name(document, name),
        root=_with_fresh_ids(source.root, new_id),
        zoomed=None,
    )
    return replace(document, layouts=(*document.layouts, copy_of_source))


def delete_layout(document: LayoutDocument, layout_id: str) -> LayoutDocument:
    document.layout(layout_id)
    if len(document.layouts) == 1:
        raise invalid("the last layout cannot be deleted", layoutId=layout_id)
    remaining = tuple(layout for layout in document.layouts if layout.id != layout_id)
    active_id = remaining[0].id if document.active_id == layout_id else document.active_id
    return replace(document, active_id=active_id, layouts=remaining)


def set_active(document: LayoutDocument, layout_id: str) -> LayoutDocument:
    document.layout(layout_id)
    return replace(document, active_id=layout_id)


def replace_layout(document: LayoutDocument, layout: Layout) -> LayoutDocument:
    """Store a changed layout (same id); its tree must be valid and a new name must be acceptable."""
    current = document.layout(layout.id)
    validate(layout.root)
    if layout.name != current.name:
        layout = replace(layout, name=_checked_name(document, layout.name, renaming=layout.id))
    return _with_layout(document, layout)


def without_agent(document: LayoutDocument, agent_id: str) -> LayoutDocument:
    """Every cell that pins the agent, in every layout, emptied (the agent was deleted); the cells stay."""
    layouts = []
    for layout in document.layouts:
        root = layout.root
        for leaf in leaves(root):
            if leaf.agent == agent_id:
                root = substitute(root, leaf.id, Leaf(leaf.id, extra=leaf.extra))
        layouts.append(layout if root is layout.root else replace(layout, root=root))
    return replace(document, layouts=tuple(layouts))


def _with_layout(document: LayoutDocument, changed: Layout) -> LayoutDocument:
    layouts = tuple(changed if layout.id == changed.id else layout for layout in document.layouts)
    return replace(document, layouts=layouts)


def _check_new_layout_id(document: LayoutDocument, layout_id: str) -> None:
    if any(layout.id == layout_id for layout in document.layouts):
        raise invalid(f"a layout with id {layout_id} already exists", layoutId=layout_id)


def _checked_name(document: LayoutDocument, name: str, renaming: str | None = None) -> str:
    """The stripped name, refused when empty, too long or already taken (ignoring case)."""
    stripped = name.strip()
    if not stripped:
        raise invalid("a layout name cannot be empty")
    if len(stripped) > MAX_NAME_LENGTH:
        raise invalid(f"a layout name has at most {MAX_NAME_LENGTH} characters; this one has {len(stripped)}")
    for layout in document.layouts:
        if layout.id != renaming and layout.name.strip().casefold() == stripped.casefold():
            raise invalid(f"a layout named {layout.name!r} already exists", layoutId=layout.id)
    return stripped


def _with_fresh_ids(node: Node, new_id: Callable[[], str]) -> Node:
    """A copy with new node ids (parents first, document order) and no live sessions."""
    fresh_id = new_id()
    match node:
        case Leaf():
            return replace(node, id=fresh_id, session=None)
        case Split():
            children = tuple(replace(child, node=_with_fresh_ids(child.node, new_id)) for child in node.children)
            return replace(node, id=fresh_id, children=children)
        case Grid():
            cells = tuple(replace(cell, node=_with_fresh_ids(cell.node, new_id)) for cell in node.cells)
            return replace(node, id=fresh_id, cells=cells)
        case UnknownNode():
            raw = copy.deepcopy(dict(node.raw))
            raw["node"] = {**raw["node"], "id": fresh_id}
            return UnknownNode(fresh_id, MappingProxyType(raw))
