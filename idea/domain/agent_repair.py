"""A manifest in which two rows share one `agentId` (a hand edit, a copy-paste, a merge of two branches):
repaired at load, never refused, and nothing of the team lost.

The rules:
- the first row keeps the id, and with it what names the id elsewhere (cell pins, the live-state row, the
  running record, the orchestrator designation);
- a later row identical to an earlier one names the same agent twice: it is dropped;
- any other later row is another agent: it gets a new id; a name already taken gets a free one
  ("Reviewer 2"); a persona path already used gets a path of its own holding a copy of the persona (the
  file itself is never moved or removed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from idea.domain.agent import AGENT_NAME_MAX_CHARS, AgentEntry, AgentManifest, unique_md_path


@dataclass(frozen=True)
class PersonaCopy:
    source: str  # mdPath of the persona both rows used
    target: str  # mdPath of the repaired row's own copy


@dataclass(frozen=True)
class ManifestRepair:
    manifest: AgentManifest
    copies: tuple[PersonaCopy, ...]  # to make before the repaired manifest is saved
    changes: tuple[str, ...]  # one sentence each, for the person

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def repair_duplicate_ids(manifest: AgentManifest, new_id: Callable[[], str]) -> ManifestRepair:
    kept: list[AgentEntry] = []
    copies: list[PersonaCopy] = []
    changes: list[str] = []
    for entry in manifest.agents:
        first = next((agent for agent in kept if agent.agent_id == entry.agent_id), None)
        if first is None:
            kept.append(entry)
            continue
        if entry == first:
            changes.append(f"'{entry.name}' was listed twice with the id {entry.agent_id}; the second row was removed.")
            continue
        repaired = entry.model_copy(update={"agent_id": new_id()})
        said = f"'{entry.name}' had the id {entry.agent_id} of '{first.name}'; it was given the id {repaired.agent_id}"
        taken_names = {agent.name.casefold() for agent in kept}
        if repaired.name.casefold() in taken_names:
            repaired = repaired.model_copy(update={"name": _free_name(repaired.name, taken_names)})
            said += f" and the name '{repaired.name}'"
        taken_paths = [agent.md_path for agent in kept]
        if repaired.md_path.casefold() in {path.casefold() for path in taken_paths}:
            own_path = unique_md_path(repaired.name, taken_paths)
            copies.append(PersonaCopy(repaired.md_path, own_path))
            repaired = repaired.model_copy(update={"md_path": own_path})
            said += f", and its own copy of the persona as {own_path}"
        changes.append(said + ".")
        kept.append(repaired)
    if not changes:
        return ManifestRepair(manifest, (), ())
    return ManifestRepair(manifest.model_copy(update={"agents": tuple(kept)}), tuple(copies), tuple(changes))


def _free_name(name: str, taken: set[str]) -> str:
    base = name[: AGENT_NAME_MAX_CHARS - 4]
    number = 2
    while f"{base} {number}".casefold() in taken:
        number += 1
    return f"{base} {number}"
