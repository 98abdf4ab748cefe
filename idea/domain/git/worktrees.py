"""Worktree per agent (spec 07 §2): names, paths, the `.worktreeinclude` list, and what the panel shows
about each worktree (ahead/behind its base, what removing it would lose, how a merge ended)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from idea.domain.agent import slugify
from idea.domain.errors import AppError, ErrorCode, invalid
from idea.domain.git.model import CommitInfo, StatusEntry
from idea.domain.wording import counted

BRANCH_PREFIX = "idea/"
WORKTREES_SUFFIX = ".worktrees"
INCLUDE_FILE = ".worktreeinclude"
BASE_CONFIG_KEY = "ideaBase"  # `branch.<name>.ideaBase` in the repository's config: the worktree's base


def worktree_slug(name: str) -> str:
    """The slug of an agent name, used for the branch, the folder and git's worktree name."""
    return slugify(name)


def worktree_branch(slug: str) -> str:
    return f"{BRANCH_PREFIX}{slug}"


def slug_of_branch(branch: str) -> str:
    """The worktree name of an agent's branch (`idea/<slug>` → `<slug>`), so that a renamed agent's worktree
    is recreated under the name it had."""
    tail = branch[len(BRANCH_PREFIX) :] if branch.startswith(BRANCH_PREFIX) else branch
    return slugify(tail)


def default_worktree_path(workdir: str, slug: str) -> str:
    """`<parent of the repository>/<repository folder>.worktrees/<slug>`: beside the repository, never
    inside it, so tools do not index the files twice (spec 07 §2, for the repository's top folder)."""
    separator = "\\" if "\\" in workdir and "/" not in workdir else "/"
    trimmed = workdir.rstrip("/\\") or workdir
    cut = max(trimmed.rfind("/"), trimmed.rfind("\\"))
    parent, folder = trimmed[:cut], trimmed[cut + 1 :]
    if not folder:
        raise invalid(f"{workdir} has no parent folder to hold worktrees")
    holder = parent if parent.endswith(separator) else parent + separator
    return f"{holder}{folder}{WORKTREES_SUFFIX}{separator}{slug}"


def is_inside(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies under it (both absolute and normalised)."""
    base = folder.rstrip("/\\")
    return path == base or path.startswith(base + "/") or path.startswith(base + "\\")


@dataclass(frozen=True)
class IncludeList:
    patterns: tuple[str, ...]
    refused: tuple[str, ...]  # lines that would reach outside the main tree


def parse_worktree_include(text: str) -> IncludeList:
    """`.worktreeinclude`: one glob per line (paths relative to the main tree), `#` comments, blank lines
    ignored. Absolute paths and `..` components are refused: only files of the main tree are copied."""
    patterns: list[str] = []
    refused: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.replace("\\", "/").split("/")
        if line.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts:
            refused.append(line)
        else:
            patterns.append(line.replace("\\", "/").rstrip("/"))
    return IncludeList(tuple(patterns), tuple(refused))


@dataclass(frozen=True)
class WorktreeInfo:
    name: str  # git's name for it (`.git/worktrees/<name>`)
    path: str
    branch: str | None  # None when detached
    head: str | None
    prunable: bool = False  # its folder is gone: only metadata is left
    locked: bool = False


@dataclass(frozen=True)
class WorktreeView:
    info: WorktreeInfo
    base: str
    ahead: int | None  # commits on the branch that the base lacks (None when unknown)
    behind: int | None
    changed_files: int | None = None  # uncommitted changes in the worktree (None when unknown)

    def summary(self) -> str:
        if self.info.prunable:
            return "folder missing"
        parts = []
        if self.ahead is not None and self.behind is not None:
            parts.append(f"↑{self.ahead} ↓{self.behind} vs {self.base}")
        if self.changed_files:
            parts.append(f"{self.changed_files} uncommitted")
        return ", ".join(parts) or "clean"


@dataclass(frozen=True)
class RemovalReport:
    """What removing a worktree would lose: uncommitted files and commits its base does not have."""

    name: str
    uncommitted: tuple[StatusEntry, ...] = ()
    unmerged: tuple[CommitInfo, ...] = ()

    @property
    def loses_work(self) -> bool:
        return bool(self.uncommitted or self.unmerged)

    def describe(self, base: str) -> str:
        lines = []
        if self.uncommitted:
            lines.append(f"{counted(len(self.uncommitted), 'uncommitted file')}:")
            lines.extend(f"  {entry.path}" for entry in self.uncommitted[:50])
            if len(self.uncommitted) > 50:
                lines.append(f"  … and {len(self.uncommitted) - 50} more")
        if self.unmerged:
            lines.append(f"{counted(len(self.unmerged), 'commit')} not merged into {base}:")
            lines.extend(f"  {c.short} {c.summary}" for c in self.unmerged[:50])
            if len(self.unmerged) > 50:
                lines.append(f"  … and {len(self.unmerged) - 50} more")
        return "\n".join(lines)


class MergeKind(StrEnum):
    UP_TO_DATE = "up-to-date"
    FAST_FORWARD = "fast-forward"
    MERGE_COMMIT = "merge-commit"
    CONFLICTS = "conflicts"


@dataclass(frozen=True)
class MergeOutcome:
    kind: MergeKind
    branch: str
    base: str
    commit: str | None = None
    conflicts: tuple[str, ...] = ()

    def message(self) -> str:
        match self.kind:
            case MergeKind.UP_TO_DATE:
                return f"{self.base} already contains {self.branch}: nothing to merge."
            case MergeKind.FAST_FORWARD:
                return f"{self.base} fast-forwarded to {self.branch} ({(self.commit or '')[:7]})."
            case MergeKind.MERGE_COMMIT:
                return f"Merged {self.branch} into {self.base} ({(self.commit or '')[:7]})."
            case MergeKind.CONFLICTS:
                shown = ", ".join(self.conflicts[:10]) + (" …" if len(self.conflicts) > 10 else "")
                return (
                    f"Merging {self.branch} into {self.base} conflicts in "
                    f"{counted(len(self.conflicts), 'file')}: {shown}. "
                    f"Nothing was changed. Resolve it in the worktree (merge {self.base} into {self.branch} "
                    "there) or ask the agent to, then merge again."
                )


@dataclass(frozen=True)
class SetupCommand:
    """The command to run in a visible shell cell once a worktree exists (`worktreeSetup`, e.g. `npm ci`)."""

    command: str
    cwd: str


@dataclass(frozen=True)
class WorktreeCreated:
    info: WorktreeInfo
    base: str
    copied: tuple[str, ...] = ()  # paths copied from the main tree (`.worktreeinclude`)
    skipped: tuple[str, ...] = ()  # lines or paths not copied, each with its reason
    setup: SetupCommand | None = None
    reused: bool = False  # the worktree already existed for this branch and path


@dataclass(frozen=True)
class WorktreeBasis:
    """Where this project's agent worktrees go and what they start from: the main tree's folder and its
    current branch (the default base), and the local branches a worktree may start from instead."""

    workdir: str
    base: str
    branches: tuple[str, ...] = ()

    def planned(self, agent_name: str) -> tuple[str, str]:
        """(branch, folder) of a new worktree for an agent of that name."""
        slug = worktree_slug(agent_name)
        return worktree_branch(slug), default_worktree_path(self.workdir, slug)


class WorktreeMissing(AppError):
    """An agent set to run in its own worktree is launched while the worktree's folder is gone. The person
    chooses: recreate it (same branch, same folder) or run the agent in the main tree."""

    def __init__(self, agent_id: str, agent_name: str, path: str, branch: str) -> None:
        super().__init__(
            ErrorCode.GIT,
            f"{agent_name} runs in its own worktree, and its folder {path} is missing. Recreate the worktree "
            f"(branch {branch}) or run {agent_name} in the main tree: launch it from the Agents panel to choose.",
            data={"agentId": agent_id, "worktree": path, "branch": branch},
        )
        self.agent_id = agent_id
        self.agent_name = agent_name
        self.path = path
        self.branch = branch


def describe_created(agent_name: str, created: WorktreeCreated) -> str:
    """What the person is told once an agent has its worktree: where, on which branch, which files were
    copied from `.worktreeinclude` and which were not, and the setup command."""
    verb = "keeps" if created.reused else "now has"
    lines = [
        f"{agent_name} {verb} its own worktree at {created.info.path}, on branch {created.info.branch} "
        f"(from {created.base})."
    ]
    if created.copied:
        lines.append(f"Copied from the main tree ({INCLUDE_FILE}): {', '.join(created.copied)}.")
    if created.skipped:
        lines.append("Not copied: " + "; ".join(created.skipped) + ".")
    if created.setup is not None:
        lines.append(f"The setup command runs in a shell cell there: {created.setup.command}")
    return "\n".join(lines)
