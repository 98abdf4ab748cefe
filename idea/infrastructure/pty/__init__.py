"""Terminals that IdeA drives itself through a pseudo-terminal: the headless `PtyProcessTerminal`, and the PTY
pump with its POSIX and ConPTY children for the native cell.

`PtyProcessTerminal` is imported on first use: ptyprocess does not import on Windows, where the ConPTY child is
imported from this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from idea.infrastructure.pty.ptyprocess_terminal import PtyProcessTerminal, PtyProcessTerminalFactory

__all__ = ["PtyProcessTerminal", "PtyProcessTerminalFactory"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from idea.infrastructure.pty import ptyprocess_terminal

        return getattr(ptyprocess_terminal, name)
    raise AttributeError(name)
