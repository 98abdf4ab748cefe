"""Git in IdeA (spec 07 §1–3): the per-project git service, worktrees and diff reviews, over `GitPort`."""
