"""CPU time used by what an agent's CLI started (the quiet heuristic of spec 03 §9.3-2): a build or a test
run it launched keeps working while the CLI itself and its transcript are silent."""

from __future__ import annotations

from collections.abc import Sequence

import psutil


class DescendantCpuProbe:
    def descendant_cpu_seconds(self, pid: int) -> float | None:
        """User + system CPU seconds of the live descendants of `pid`, IdeA's own helpers excluded; None
        when `pid` is gone."""
        try:
            children = psutil.Process(pid).children(recursive=True)
        except psutil.Error:
            return None
        total = 0.0
        for child in children:
            try:
                if _is_idea_helper(child.cmdline()):
                    continue
                times = child.cpu_times()
            except psutil.Error:  # ended while we looked
                continue
            total += times.user + times.system
        return total


def _is_idea_helper(argv: Sequence[str]) -> bool:
    """The MCP bridge (`idea mcp-server …`) and the hook relay (`idea hook --source …`) idle by design."""
    return "mcp-server" in argv or ("hook" in argv and "--source" in argv)
