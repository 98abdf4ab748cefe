"""Worktree per agent (spec 07 §2), as a service the agent screens and the runner call: create a worktree on
`idea/<slug>` beside the repository and prepare it (`.worktreeinclude`, the setup command to run), list
worktrees with ahead/behind against their base, diff and merge into the base, remove with the safety rule,
prune stale metadata when the project opens.

The base of a worktree is the branch it was created from, kept in the repository's config as
`branch.<branch>.ideaBase`; without it, the main tree's current branch."""

from __future__ import annotations

from collections.abc import Callable

from idea.application.git.access import RepoAccess, require_identity
from idea.application.git.ports import GitRepository, WorktreeFiles
from idea.domain.agent import Worktree
from idea.domain.errors import AppError, ErrorCode, invalid, not_found
from idea.domain.git.diff import Diff, DiffKind, DiffSpec
from idea.domain.git.model import RepoFacts
from idea.domain.git.notices import Gesture, refusal
from idea.domain.git.worktrees import (
    BASE_CONFIG_KEY,
    INCLUDE_FILE,
    MergeOutcome,
    RemovalReport,
    SetupCommand,
    WorktreeBasis,
    WorktreeCreated,
    WorktreeInfo,
    WorktreeView,
    default_worktree_path,
    is_inside,
    parse_worktree_include,
    worktree_branch,
    worktree_slug,
)
from idea.domain.wording import counted

UNMERGED_SHOWN = 200


class RemovalNeedsConfirmation(AppError):
    """Removing the worktree would lose work; the person must see `report` and confirm."""

    def __init__(self, report: RemovalReport, base: str) -> None:
        super().__init__(
            ErrorCode.GIT,
            f"Removing worktree {report.name} would lose work:\n{report.describe(base)}",
            data={"worktree": report.name},
        )
        self.report = report
        self.base = base


class WorktreeService:
    def __init__(
        self, access: RepoAccess, files: WorktreeFiles, setup_command: Callable[[], str | None]
    ) -> None:
        self._access = access
        self._files = files
        self._setup_command = setup_command

    async def prune(self) -> tuple[str, ...]:
        """Forget worktrees whose folder is gone (run when the project opens)."""
        if await self._access.discover() is None:
            return ()
        pruned = await self._access.run(lambda repo: () if repo.workdir is None else repo.prune_worktrees())
        if pruned:
            self._access.diagnostics.beacon(f"[git] pruned stale worktrees {', '.join(pruned)} of {self._access.root}")
            self._access.changed("prune")
        return pruned

    async def views(self) -> list[WorktreeView]:
        return await self._access.run(_read_views)

    async def view(self, name: str) -> WorktreeView:
        found = next((v for v in await self.views() if v.info.name == name), None)
        if found is None:
            raise not_found(f"There is no worktree named {name}.")
        return found

    async def basis(self) -> WorktreeBasis:
        """Where new agent worktrees go and what they start from; AppError(GIT) with the reason when this
        repository cannot have one now (no repository, no commit yet, detached HEAD, a merge in progress…)."""

        def work(repo: GitRepository) -> WorktreeBasis:
            facts = repo.facts()
            reason = refusal(facts, Gesture.WORKTREE)
            if reason is not None:
                raise AppError(ErrorCode.GIT, reason)
            branches = tuple(branch.name for branch in repo.branches())
            return WorktreeBasis(_workdir(repo), _current_branch(facts), branches)

        return await self._access.run(work)

    async def create(
        self, agent_name: str, base: str | None = None, path: str | None = None, *, slug: str | None = None
    ) -> WorktreeCreated:
        """A worktree for the agent: branch `idea/<slug>` from `base` (default: the current branch), at `path`
        (default: `<parent>/<repository>.worktrees/<slug>`), with the `.worktreeinclude` files copied from
        the main tree. The setup command, when one is configured, is returned for a visible shell cell.
        An existing `idea/<slug>` branch is checked out as it is (its recorded base is kept)."""
        slug = slug or worktree_slug(agent_name)
        branch = worktree_branch(slug)

        def work(repo: GitRepository) -> tuple[WorktreeInfo, str, bool]:
            facts = repo.facts()
            reason = refusal(facts, Gesture.WORKTREE)
            if reason is not None:
                raise AppError(ErrorCode.GIT, reason)
            workdir = _workdir(repo)
            start = base or _current_branch(facts)
            target = path or default_worktree_path(workdir, slug)
            if is_inside(workdir, target):
                raise invalid(f"A worktree cannot hold the main tree ({workdir}).")
            existing = next((w for w in repo.worktrees() if w.name == slug), None)
            if existing is not None and not existing.prunable:
                if existing.path.rstrip("/") != target.rstrip("/") or existing.branch != branch:
                    raise AppError(
                        ErrorCode.GIT,
                        f"A worktree named {slug} already exists at {existing.path} on "
                        f"{existing.branch or 'a detached HEAD'}.",
                    )
                return existing, repo.get_config(_base_key(branch)) or start, True
            if existing is not None:
                repo.prune_worktrees()
            info = repo.add_worktree(slug, target, branch, start)
            recorded = repo.get_config(_base_key(branch))
            if recorded is None or base is not None:
                repo.set_config(_base_key(branch), start)
            return info, recorded if recorded is not None and base is None else start, False

        info, chosen_base, reused = await self._access.run(work)
        copied, skipped = await self._access.run(lambda repo: self._copy_included(_workdir(repo), info.path))
        command = (self._setup_command() or "").strip()
        setup = SetupCommand(command, info.path) if command else None
        self._access.diagnostics.beacon(
            f"[git] worktree {'kept' if reused else 'created'} {info.path} on {branch} from {chosen_base}; "
            f"copied {counted(len(copied), 'file')}"
        )
        self._access.changed("worktree created")
        return WorktreeCreated(info, chosen_base, copied, skipped, setup, reused)

    def _copy_included(self, workdir: str, target: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        text = self._files.read_text(f"{workdir.rstrip('/')}/{INCLUDE_FILE}")
        if text is None:
            return (), ()
        parsed = parse_worktree_include(text)
        copied, skipped = self._files.copy_included(workdir, target, parsed.patterns)
        refused = tuple(f"{line}: outside the main tree, not copied" for line in parsed.refused)
        return copied, (*refused, *skipped)

    async def diff_vs_base(self, name: str) -> Diff:
        view = await self.view(name)
        return await self._access.run(lambda repo: repo.diff(spec_for(view)))

    async def merge_into_base(self, name: str) -> MergeOutcome:
        """Merge the worktree's branch into its base: fast-forward or merge commit; conflicts are reported
        and change nothing."""
        view = await self.view(name)
        branch = view.info.branch
        if branch is None:
            raise AppError(ErrorCode.GIT, f"Worktree {name} is on a detached HEAD: there is no branch to merge.")

        def work(repo: GitRepository) -> MergeOutcome:
            reason = refusal(repo.facts(), Gesture.MERGE)
            if reason is not None:
                raise AppError(ErrorCode.GIT, reason)
            return repo.merge(branch, view.base, require_identity(repo))

        try:
            outcome = await self._access.run(work)
        finally:
            self._access.changed("merge")
        self._access.diagnostics.beacon(f"[git] merge {branch} into {view.base}: {outcome.kind.value}")
        return outcome

    async def removal_report(self, name: str) -> RemovalReport:
        view = await self.view(name)

        def work(repo: GitRepository) -> RemovalReport:
            uncommitted = () if view.info.prunable else tuple(repo.worktree_status(view.info.path).changed())
            unmerged = ()
            if view.info.branch is not None:
                unmerged = repo.unmerged_commits(view.info.branch, view.base, UNMERGED_SHOWN)
            return RemovalReport(name, uncommitted, unmerged)

        return await self._access.run(work)

    async def remove(self, name: str, confirmed: RemovalReport | None = None) -> None:
        """Remove the worktree's folder and metadata. When that would lose work (uncommitted files, commits
        the base lacks), RemovalNeedsConfirmation is raised until `confirmed` is the report the person saw
        and nothing new was added since. The branch stays, so committed work can still be merged."""
        view = await self.view(name)
        report = await self.removal_report(name)
        if report.loses_work and report != confirmed:
            raise RemovalNeedsConfirmation(report, view.base)

        def work(repo: GitRepository) -> None:
            main = _workdir(repo)
            if is_inside(main, view.info.path):
                raise AppError(ErrorCode.GIT, f"{view.info.path} holds the main tree; IdeA never removes it.")
            repo.remove_worktree(name)

        try:
            await self._access.run(work)
        finally:
            self._access.changed("worktree removed")
        self._access.diagnostics.beacon(f"[git] worktree removed {view.info.path} ({name})")


def spec_for(view: WorktreeView) -> DiffSpec:
    return DiffSpec(DiffKind.WORKTREE, base=view.base, head=view.info.path)


def manifest_worktree(created: WorktreeCreated) -> Worktree:
    """The agent manifest's `worktree` field for a created worktree (spec 07 §2)."""
    return Worktree(branch=created.info.branch or "", path=created.info.path)


def _read_views(repo: GitRepository) -> list[WorktreeView]:
    if repo.workdir is None:
        return []
    default_base = _current_branch(repo.facts(), strict=False)
    views = []
    for info in repo.worktrees():
        base = (repo.get_config(_base_key(info.branch)) if info.branch else None) or default_base
        ahead = behind = None
        if info.branch and base:
            try:
                ahead, behind = repo.ahead_behind(info.branch, base)
            except AppError:
                pass
        changed = None
        if not info.prunable:
            try:
                changed = len(repo.worktree_status(info.path).changed())
            except AppError:
                pass
        views.append(WorktreeView(info, base or "?", ahead, behind, changed))
    return views


def _base_key(branch: str) -> str:
    return f"branch.{branch}.{BASE_CONFIG_KEY}"


def _workdir(repo: GitRepository) -> str:
    if repo.workdir is None:
        raise AppError(ErrorCode.GIT, "A bare repository has no working tree to make worktrees from.")
    return repo.workdir


def _current_branch(facts: RepoFacts, strict: bool = True) -> str:
    if facts.head.branch is not None and not facts.head.unborn:
        return facts.head.branch
    if not strict:
        return facts.head.branch or ""
    if facts.head.unborn:
        raise AppError(ErrorCode.GIT, "The repository has no commit yet: commit once before creating worktrees.")
    raise AppError(ErrorCode.GIT, "HEAD is detached: check a branch out (or choose a base) to create a worktree from.")
