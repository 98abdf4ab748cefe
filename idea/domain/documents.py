"""Base for the JSON documents IdeA shares with the original: camelCase keys, absent optionals omitted,
unknown keys kept so a file written by a newer or older version survives a rewrite."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any, Self

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class CamelDocument(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        frozen=True,
    )

    @classmethod
    def from_json(cls, data: Any) -> Self:
        return cls.model_validate(data)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


Location = Sequence[str | int]  # keys and list indexes from the document's top, as a validation error gives them
KEPT_WHOLE = ("version",)  # never dropped: a file of another version is not read as this one


def without_entries(data: Any, locations: Iterable[Location]) -> Any | None:
    """A copy of the JSON value `data` without what each location points into: the innermost list item on its
    path (one window, one project), else the top-level key (one setting). None when a location cannot be
    dropped: the document as a whole, its version, or a key the file does not have."""
    cuts: set[tuple[str | int, ...]] = set()
    for location in locations:
        if not location or location[0] in KEPT_WHOLE:
            return None
        items = [index for index, part in enumerate(location) if isinstance(part, int)]
        cuts.add(tuple(location[: items[-1] + 1] if items else location[:1]))
    trimmed = copy.deepcopy(data)
    # Deepest first, and the later items of a list before the earlier ones: no cut moves another.
    for cut in sorted(cuts, key=lambda cut: (len(cut), cut[-1] if isinstance(cut[-1], int) else -1), reverse=True):
        container = trimmed
        try:
            for part in cut[:-1]:
                container = container[part]
            del container[cut[-1]]
        except (KeyError, IndexError, TypeError):
            return None
    return trimmed
