"""Git as IdeA sees it (spec 07 §1–3): repository facts, status, diffs, history lanes, worktrees and
reviews, as pure values and rules. The pygit2 adapter builds these values; nothing here touches a repository."""
