"""Launch support for agents: IdeA's own executable, run dirs and shared Codex credentials."""
