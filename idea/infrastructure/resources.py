"""The read-only files shipped with IdeA (`resources/`): reference profiles, starter templates, prompts."""

from __future__ import annotations

import sys
from pathlib import Path

from idea.application.agents.convention_file import OrchestrationTexts


def resources_dir() -> Path:
    """`resources/` next to the package in a checkout; inside the bundle when frozen (PyInstaller)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parents[2] / "resources"


class ResourcePromptLibrary:
    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory if directory is not None else resources_dir() / "prompts"

    def orchestration_texts(self) -> OrchestrationTexts:
        return OrchestrationTexts(
            mcp=(self._directory / "orchestration_mcp.md").read_text(encoding="utf-8"),
            file=(self._directory / "orchestration_file.md").read_text(encoding="utf-8"),
        )
