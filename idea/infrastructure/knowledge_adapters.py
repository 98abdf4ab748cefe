"""The file adapters of a project's knowledge: conversation logs and handoffs, memory notes, skills of both
scopes, the shared context and its proposals."""

from __future__ import annotations

from pathlib import Path

from idea.application.knowledge.runtime import KnowledgeStores
from idea.infrastructure.stores.context import MarkdownContextStore
from idea.infrastructure.stores.conversation_log import JsonlConversationLog
from idea.infrastructure.stores.handoffs import MarkdownHandoffStore
from idea.infrastructure.stores.memory_notes import MarkdownMemoryStore
from idea.infrastructure.stores.skills import JsonSkillStore


class LocalKnowledgeAdapters:
    def __init__(self, user_data_dir: Path) -> None:
        self._global_skills = JsonSkillStore.global_(user_data_dir)

    def for_project(self, root: str) -> KnowledgeStores:
        return KnowledgeStores(
            conversations=JsonlConversationLog(root),
            handoffs=MarkdownHandoffStore(root),
            memory=MarkdownMemoryStore(root),
            project_skills=JsonSkillStore.for_project(root),
            global_skills=self._global_skills,
            context=MarkdownContextStore(root),
        )
