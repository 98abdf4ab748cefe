"""`.ideai/CONTEXT.md` and the proposals to change it, `.ideai/proposals/<atMs>-<agentSlug>.md`
(spec 04 §14). A file that is not UTF-8 is moved aside; a proposal is never overwritten by another."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from idea.domain.knowledge.context import (
    CONTEXT_FILE,
    PROPOSALS_DIR,
    ParsedProposal,
    Proposal,
    is_proposal_file_name,
    parse_proposal,
)
from idea.domain.errors import CorruptFileError, invalid
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_text, read_text, remove_if_present
from idea.infrastructure.stores.document_file import path_lock


@dataclass
class ProposalScan:
    proposals: list[ParsedProposal] = field(default_factory=list)  # oldest first
    problems: list[str] = field(default_factory=list)


class MarkdownContextStore:
    def __init__(self, project_root: str) -> None:
        self.context_path = Path(project_root) / IDEAI_DIR / CONTEXT_FILE
        self.proposals_dir = Path(project_root) / IDEAI_DIR / PROPOSALS_DIR

    def read_context(self) -> str | None:
        with path_lock(self.context_path):
            return read_text(self.context_path)

    def write_context(self, text: str) -> None:
        with path_lock(self.context_path):
            atomic_write_text(self.context_path, text if text.endswith("\n") or not text else text + "\n")

    def proposal_names(self) -> set[str]:
        try:
            return {name for name in os.listdir(self.proposals_dir) if is_proposal_file_name(name)}
        except FileNotFoundError:
            return set()

    def scan_proposals(self) -> ProposalScan:
        scan = ProposalScan()
        for name in sorted(self.proposal_names(), key=_order):
            try:
                parsed = self.read_proposal(name)
            except CorruptFileError as exc:
                scan.problems.append(exc.message)
                continue
            if parsed is None:
                continue
            scan.proposals.append(parsed)
            scan.problems.extend(problem.describe(str(self.proposals_dir / name)) for problem in parsed.problems)
        return scan

    def read_proposal(self, file_name: str) -> ParsedProposal | None:
        path = self._proposal_path(file_name)
        with path_lock(path):
            text = read_text(path)
        return parse_proposal(file_name, text) if text is not None else None

    def write_proposal(self, proposal: Proposal) -> None:
        path = self._proposal_path(proposal.file_name)
        with path_lock(path):
            if path.exists():
                raise invalid(f"a proposal named {proposal.file_name} already exists")
            atomic_write_text(path, proposal.render())

    def delete_proposal(self, file_name: str) -> bool:
        path = self._proposal_path(file_name)
        with path_lock(path):
            return remove_if_present(path)

    def _proposal_path(self, file_name: str) -> Path:
        if not is_proposal_file_name(file_name):
            raise invalid(f"{file_name!r} is not the name of a context proposal")
        return self.proposals_dir / file_name


def _order(name: str) -> tuple[int, str]:
    stamp = name.split("-", 1)[0]
    return (int(stamp) if stamp.isdigit() else 0, name)
