"""Base for the JSON documents IdeA shares with the original: camelCase keys, absent optionals omitted,
unknown keys kept so a file written by a newer or older version survives a rewrite."""

from __future__ import annotations

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
