"""How other processes start IdeA again: the MCP bridge and the hook relay are IdeA subcommands (spec 02 §12).

The rules live in `idea.infrastructure.installation`; this name stays for the run-dir writer and its tests.
"""

from __future__ import annotations

from idea.infrastructure.installation import FALLBACK_COMMAND, idea_command

__all__ = ["FALLBACK_COMMAND", "idea_command"]
