"""Terminals that IdeA drives itself through a pseudo-terminal, without a widget."""

from __future__ import annotations

from idea.infrastructure.pty.ptyprocess_terminal import PtyProcessTerminal, PtyProcessTerminalFactory

__all__ = ["PtyProcessTerminal", "PtyProcessTerminalFactory"]
