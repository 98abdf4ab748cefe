"""The shared project context `.ideai/CONTEXT.md` and the proposals to change it (spec 04 §14).

The designated orchestrator and the person write it directly; any other agent files a proposal
(`.ideai/proposals/<atMs>-<agentSlug>.md`, front matter `author`, `atMs`, `baseHash`) that the person or the
orchestrator accepts or rejects, seeing a diff against the current context.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from enum import StrEnum

from idea.domain.agent import AgentManifest, slugify
from idea.domain.knowledge.front_matter import Problem, render_block, split_front_matter
from idea.domain.template import content_hash

CONTEXT_FILE = "CONTEXT.md"
PROPOSALS_DIR = "proposals"
PROPOSAL_SUFFIX = ".md"
CONTEXT_MAX_CHARS = 200_000
CONTEXT_HEADING = "# Project context"


def context_hash(text: str) -> str:
    """16 hex characters of the SHA-256 of the context; a missing context hashes as the empty text."""
    return content_hash(text)


def may_write_directly(requester_agent_id: str | None, manifest: AgentManifest) -> bool:
    """The single-writer rule: the person (no agent id) and the designated orchestrator (the first agent
    when none is designated) write `CONTEXT.md`; everyone else proposes."""
    if requester_agent_id is None:
        return True
    orchestrator = manifest.effective_orchestrator()
    return orchestrator is not None and orchestrator.agent_id == requester_agent_id


def may_replace_persona(requester_agent_id: str | None, target_agent_id: str, manifest: AgentManifest) -> bool:
    """`idea_update_context` and `idea_context_propose` with a target: an agent replaces its own persona;
    the orchestrator and the person replace anyone's."""
    return requester_agent_id in (None, target_agent_id) or may_write_directly(requester_agent_id, manifest)


@dataclass(frozen=True)
class Proposal:
    file_name: str  # `<atMs>-<agentSlug>.md`, its id
    author: str  # the proposing agent's name
    at_ms: int
    base_hash: str  # hash of the context the author saw
    content: str  # the proposed context, whole

    def render(self) -> str:
        values = {"author": self.author, "atMs": self.at_ms, "baseHash": self.base_hash}
        return render_block(values) + self.content.rstrip("\n") + "\n"

    def is_stale(self, current_context: str) -> bool:
        """The context changed since the proposal was written: accepting it would undo those changes."""
        return self.base_hash != context_hash(current_context)


def proposal_file_name(at_ms: int, author: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    base = f"{at_ms}-{slugify(author)}"
    name = f"{base}{PROPOSAL_SUFFIX}"
    suffix = 2
    while name in taken:
        name = f"{base}-{suffix}{PROPOSAL_SUFFIX}"
        suffix += 1
    return name


def is_proposal_file_name(name: str) -> bool:
    stem = name[: -len(PROPOSAL_SUFFIX)] if name.endswith(PROPOSAL_SUFFIX) else ""
    at_ms, dash, slug = stem.partition("-")
    return bool(stem) and at_ms.isdigit() and at_ms.isascii() and bool(dash) and bool(slug) and "/" not in name


@dataclass(frozen=True)
class ParsedProposal:
    proposal: Proposal
    problems: tuple[Problem, ...]


def parse_proposal(file_name: str, text: str) -> ParsedProposal:
    """A proposal file read as far as it is valid; missing keys are taken from the file name."""
    document = split_front_matter(text)
    values = document.blocks[0].values if document.blocks else {}
    problems = list(document.problems)
    name_ms, _, name_slug = file_name.removesuffix(PROPOSAL_SUFFIX).partition("-")
    raw_ms = values.get("atMs")
    at_ms = int(raw_ms) if isinstance(raw_ms, str) and raw_ms.isdigit() else None
    if at_ms is None:
        problems.append(Problem(1, "`atMs` is missing; the time in the file name is used"))
        at_ms = int(name_ms) if name_ms.isdigit() else 0
    author = values.get("author")
    if not isinstance(author, str) or not author.strip():
        problems.append(Problem(1, "`author` is missing; the name in the file name is used"))
        author = name_slug or "unknown"
    base_hash = values.get("baseHash")
    if not isinstance(base_hash, str):
        problems.append(Problem(1, "`baseHash` is missing: the proposal is treated as written on another context"))
        base_hash = ""
    content = document.body.strip("\n")
    return ParsedProposal(Proposal(file_name, author.strip(), at_ms, base_hash, content), tuple(problems))


class DiffKind(StrEnum):
    SAME = "same"
    ADDED = "added"
    REMOVED = "removed"
    GAP = "gap"  # unchanged lines left out between hunks


@dataclass(frozen=True)
class DiffLine:
    kind: DiffKind
    text: str
    old_line: int | None = None  # 1-based in the current context
    new_line: int | None = None  # 1-based in the proposal


def context_diff(current: str, proposed: str, context_lines: int = 3) -> tuple[DiffLine, ...]:
    """Line diff of the current context against a proposal, with `context_lines` unchanged lines around
    each change (a GAP line stands for the ones left out)."""
    old = current.replace("\r\n", "\n").rstrip("\n").split("\n")
    new = proposed.replace("\r\n", "\n").rstrip("\n").split("\n")
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    lines: list[DiffLine] = []
    for group in matcher.get_grouped_opcodes(context_lines):
        if lines:
            lines.append(DiffLine(DiffKind.GAP, "…"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(DiffLine(DiffKind.SAME, old[i], i + 1, j1 + (i - i1) + 1) for i in range(i1, i2))
                continue
            if tag in ("replace", "delete"):
                lines.extend(DiffLine(DiffKind.REMOVED, old[i], old_line=i + 1) for i in range(i1, i2))
            if tag in ("replace", "insert"):
                lines.extend(DiffLine(DiffKind.ADDED, new[j], new_line=j + 1) for j in range(j1, j2))
    return tuple(lines)
