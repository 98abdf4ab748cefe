"""Which of Codex's `notify` events tell of the agent's own turns.

Codex also runs its `notify` program for threads it starts by itself beside the agent's session: the title
it asks the model for when a session gets its first prompt is a turn of its own thread, whose
`input-messages` quote that prompt ("Generate a concise, single-line task title … User prompt:\\n[IdeA · task
from Main · ticket …] …"), and it completes long before the agent's turn (checked with 0.171). Taken as the
agent's, it ended a delegated task's turn at once and recorded that thread as the agent's session. Such a
thread writes no rollout: a `thread-id` that no rollout of the agent's `CODEX_HOME` names is not the agent's.
When the agent has no rollout at all there is nothing to tell by, and the event is kept.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from idea.domain.ids import is_uuid
from idea.infrastructure.inspect.activity import CODEX_HOME_DIR, agent_run_dir
from idea.infrastructure.inspect.engine_sessions import codex_rollouts, rollout_of

CODEX_SOURCE = "codex"
THREAD_KEY = "thread-id"


class CodexSideThreads:
    def __init__(self, project_root: str) -> None:
        self._root = project_root

    def ignored(self, agent_id: str, source: str, payload: Mapping[str, Any]) -> str | None:
        """Why the event is not the agent's (to be dropped), or None."""
        thread = payload.get(THREAD_KEY)
        if source != CODEX_SOURCE or not (isinstance(thread, str) and is_uuid(thread)):
            return None
        rollouts = codex_rollouts(os.path.join(agent_run_dir(self._root, agent_id), CODEX_HOME_DIR))
        if not rollouts or rollout_of(rollouts, thread) is not None:
            return None
        return f"Codex thread {thread} has no rollout: one Codex started by itself (a session title)"
