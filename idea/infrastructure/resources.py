"""The read-only files shipped with IdeA inside the package (`idea/resources/`): reference profiles, starter
templates, prompts, colour schemes, key bindings, icons, the desktop entry and the AppStream metainfo.

They are package data, found through `importlib.resources` wherever the package is: a checkout, a wheel
installed in a venv, or the PyInstaller bundle (which collects them beside the frozen modules).
"""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path

from idea.application.agents.convention_file import OrchestrationTexts

DESKTOP_ID = "io.github.idea"  # desktop file id, AppStream component id and icon name (the user-data id is paths.APP_ID)
DESKTOP_FILE = f"desktop/{DESKTOP_ID}.desktop"
METAINFO_FILE = f"desktop/{DESKTOP_ID}.metainfo.xml"
SCALABLE_ICON = "icons/idea.svg"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def hicolor_icon(size: int) -> str:
    """The PNG of one hicolor size, relative to the resources directory."""
    return f"icons/hicolor/{size}x{size}/apps/{DESKTOP_ID}.png"


# What IdeA cannot start without; `idea doctor` checks each one.
REQUIRED_RESOURCES: tuple[str, ...] = (
    "profiles/reference-profiles.json",
    "prompts/orchestration_mcp.md",
    "prompts/orchestration_file.md",
    "templates/index.json",
    "color-schemes/IdeA Dark.colorscheme",
    "color-schemes/IdeA Light.colorscheme",
    "kb-layouts/IdeA.keytab",
    SCALABLE_ICON,
    DESKTOP_FILE,
    METAINFO_FILE,
    *(hicolor_icon(size) for size in ICON_SIZES),
)


def resources_dir() -> Path:
    """`idea/resources/` of the imported package, as a real directory (Qt and the terminal widget take paths)."""
    root = importlib.resources.files("idea") / "resources"
    if not isinstance(root, Path):  # a zipped install: nothing IdeA builds produces one
        raise RuntimeError(f"IdeA's resources are not a directory on disk ({root}); install IdeA unzipped")
    return root


def missing_resources(directory: Path | None = None) -> list[str]:
    """The required resources absent from `directory` (default: the package's), including the starter
    templates that `templates/index.json` lists."""
    root = resources_dir() if directory is None else directory
    missing = [name for name in REQUIRED_RESOURCES if not (root / name).is_file()]
    index = root / "templates" / "index.json"
    if index.is_file():
        try:
            entries = json.loads(index.read_text(encoding="utf-8")).get("templates", [])
        except (OSError, ValueError, AttributeError):
            return [*missing, "templates/index.json (unreadable)"]
        for entry in entries:
            name = f"templates/{entry.get('file', '')}" if isinstance(entry, dict) else "templates/?"
            if not (root / name).is_file():
                missing.append(name)
    return missing


class ResourcePromptLibrary:
    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory if directory is not None else resources_dir() / "prompts"

    def orchestration_texts(self) -> OrchestrationTexts:
        return OrchestrationTexts(
            mcp=(self._directory / "orchestration_mcp.md").read_text(encoding="utf-8"),
            file=(self._directory / "orchestration_file.md").read_text(encoding="utf-8"),
        )
