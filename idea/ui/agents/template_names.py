"""The rule for naming a new template, checked as the user types in Save as template and in Templates."""

from __future__ import annotations

from collections.abc import Iterable

TEMPLATE_NAME_HINT = "Templates are shared by all your projects."


def template_name_problem(name: str, taken_names: Iterable[str]) -> str | None:
    """Why a new template cannot be called `name` (already stripped), or None when it can."""
    if not name:
        return "A template needs a name."
    if name.casefold() in {taken.casefold() for taken in taken_names}:
        return f"A template named “{name}” already exists."
    return None
