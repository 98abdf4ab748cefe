"""How other processes start IdeA again: the MCP bridge and the hook relay are IdeA subcommands (spec 02 §12)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

FALLBACK_COMMAND = "idea"


def idea_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """The argv prefix that runs IdeA: the AppImage, the frozen executable, or `python -m idea` in a checkout.

    `$APPIMAGE` wins because `sys.executable` inside an AppImage points into its temporary mount.
    """
    env = os.environ if environ is None else environ
    appimage = env.get("APPIMAGE")
    if appimage:
        return [appimage]
    if not sys.executable:
        return [FALLBACK_COMMAND]
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "idea"]
