"""What one `idea_*` tool is (`ToolSpec`) and the shape of its input schema, shared by the tables of tools
(`tools.py` for the orchestration tools, `knowledge_tools.py` for memory, skills and the shared context)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from idea.domain.knowledge.commands import KnowledgeCommand
from idea.domain.orchestration.commands import Command

ToolCommand = Command | KnowledgeCommand


def object_schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed JSON object schema (spec 03 §5: every tool's input is one)."""
    schema: dict[str, Any] = {"type": "object", "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    schema["properties"] = properties
    return schema


@dataclass(frozen=True)
class ToolSpec:
    """One `idea_*` tool: its name, the request-file type that carries the same arguments (spec 03 §2, §6),
    what the model is told, the schema its arguments are checked against, and the command it builds."""

    name: str
    request_type: str
    description: str
    input_schema: dict[str, Any]
    command: Callable[[dict[str, str]], ToolCommand]

    def definition(self) -> dict[str, Any]:
        """The tool as MCP clients receive it."""
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
