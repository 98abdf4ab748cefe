"""Diffs: the pygit2 diff of each comparison, turned into the domain's files, hunks and lines; the new side
of a file; staging and unstaging one hunk."""

from __future__ import annotations

import os

import pygit2
from pygit2.enums import DeltaStatus, DiffOption

from idea.domain.errors import AppError, ErrorCode
from idea.domain.git.diff import Diff, DiffKind, DiffLine, DiffSpec, FileDiff, Hunk, LineKind
from idea.domain.git.hunks import RawHunk, RawLine, apply_hunk
from idea.domain.git.model import ChangeKind, short_oid
from idea.infrastructure.git.errors import git_errors
from idea.infrastructure.git.facts import read_head

CONTEXT_LINES = 3  # the viewer's diffs and the ones recomputed to stage a hunk must match
FILE_LINES_SHOWN = 20_000  # a file changing more lines is listed with its stats, its lines left out
_WITH_UNTRACKED = (
    DiffOption.INCLUDE_UNTRACKED
    | DiffOption.RECURSE_UNTRACKED_DIRS
    | DiffOption.SHOW_UNTRACKED_CONTENT
    | DiffOption.INCLUDE_TYPECHANGE
)
_CHANGES = {
    DeltaStatus.ADDED: ChangeKind.NEW,
    DeltaStatus.UNTRACKED: ChangeKind.NEW,
    DeltaStatus.DELETED: ChangeKind.DELETED,
    DeltaStatus.MODIFIED: ChangeKind.MODIFIED,
    DeltaStatus.RENAMED: ChangeKind.RENAMED,
    DeltaStatus.COPIED: ChangeKind.NEW,
    DeltaStatus.TYPECHANGE: ChangeKind.TYPECHANGE,
    DeltaStatus.UNREADABLE: ChangeKind.UNREADABLE,
    DeltaStatus.CONFLICTED: ChangeKind.MODIFIED,
}
_KINDS = {" ": LineKind.CONTEXT, "+": LineKind.ADDED, "-": LineKind.REMOVED}


def resolve_commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    try:
        found = repo.revparse_single(rev)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise AppError(ErrorCode.GIT, f"There is no branch or commit named {rev!r}.") from exc
    commit = found.peel(pygit2.Commit)
    assert isinstance(commit, pygit2.Commit)
    return commit


def empty_tree(repo: pygit2.Repository) -> pygit2.Tree:
    tree = repo[repo.TreeBuilder().write()]
    assert isinstance(tree, pygit2.Tree)
    return tree


def head_tree(repo: pygit2.Repository) -> pygit2.Tree:
    if repo.head_is_unborn:
        return empty_tree(repo)
    return repo.head.peel(pygit2.Commit).tree


def compute_diff(repo: pygit2.Repository, spec: DiffSpec, context_lines: int = CONTEXT_LINES) -> Diff:
    options = {"context_lines": context_lines}
    with git_errors("compute the diff"):
        match spec.kind:
            case DiffKind.WORKING:
                raw = head_tree(_with_workdir(repo)).diff_to_workdir(flags=_WITH_UNTRACKED, **options)
                raw.find_similar()
                labels = (read_head(repo).label(), "working tree")
            case DiffKind.UNSTAGED:
                index = _fresh_index(_with_workdir(repo))
                raw = index.diff_to_workdir(flags=_WITH_UNTRACKED, **options)
                labels = ("index", "working tree")
            case DiffKind.STAGED:
                raw = head_tree(repo).diff_to_index(_fresh_index(_with_workdir(repo)), **options)
                raw.find_similar()
                labels = (read_head(repo).label(), "staged changes")
            case DiffKind.COMMIT:
                commit = resolve_commit(repo, spec.head or "")
                parent = commit.parents[0].tree if commit.parents else empty_tree(repo)
                raw = parent.diff_to_tree(commit.tree, **options)
                raw.find_similar()
                labels = (f"{short_oid(str(commit.id))}^", f"commit {short_oid(str(commit.id))}")
            case DiffKind.BRANCH:
                base = resolve_commit(repo, spec.base or "HEAD")
                head = resolve_commit(repo, spec.head or "")
                raw = _merge_base_tree(repo, base, head).diff_to_tree(head.tree, **options)
                raw.find_similar()
                labels = (spec.base or "HEAD", spec.head or "")
            case DiffKind.WORKTREE:
                worktree = pygit2.Repository(spec.head or "")
                base = resolve_commit(worktree, spec.base or "HEAD")
                branch = read_head(worktree)
                tip = base if worktree.head_is_unborn else worktree.head.peel(pygit2.Commit)
                start = _merge_base_tree(worktree, base, tip)
                raw = start.diff_to_workdir(flags=_WITH_UNTRACKED, **options)
                raw.find_similar()
                labels = (spec.base or "HEAD", branch.label())
        files = tuple(_file_diff(patch) for patch in raw if patch is not None)
    return Diff(spec, files, base_label=labels[0], head_label=labels[1])


def _with_workdir(repo: pygit2.Repository) -> pygit2.Repository:
    if repo.workdir is None:
        raise AppError(ErrorCode.GIT, "A bare repository has no working tree to compare.")
    return repo


def _fresh_index(repo: pygit2.Repository) -> pygit2.Index:
    """The index as on disk now (another process may have staged something since the last read)."""
    index = repo.index
    index.read(False)
    return index


def _merge_base_tree(repo: pygit2.Repository, base: pygit2.Commit, head: pygit2.Commit) -> pygit2.Tree:
    merge_base = repo.merge_base(base.id, head.id)
    if merge_base is None:
        return empty_tree(repo)
    commit = repo[merge_base]
    assert isinstance(commit, pygit2.Commit)
    return commit.tree


def _file_diff(patch: pygit2.Patch) -> FileDiff:
    delta = patch.delta
    _context, additions, deletions = patch.line_stats
    old_path = None if delta.status in (DeltaStatus.ADDED, DeltaStatus.UNTRACKED) else delta.old_file.path
    new_path = None if delta.status == DeltaStatus.DELETED else delta.new_file.path
    binary = bool(delta.is_binary)
    shown = not binary and additions + deletions <= FILE_LINES_SHOWN
    hunks = tuple(_hunk(h) for h in patch.hunks) if shown else ()
    return FileDiff(
        old_path=old_path,
        new_path=new_path,
        change=_CHANGES.get(delta.status, ChangeKind.MODIFIED),
        hunks=hunks,
        additions=additions,
        deletions=deletions,
        binary=binary,
        old_size=delta.old_file.size,
        new_size=delta.new_file.size,
        similarity=delta.similarity if delta.status == DeltaStatus.RENAMED else None,
        elided=not binary and not shown,
    )


def _hunk(hunk: pygit2.DiffHunk) -> Hunk:
    lines = []
    for line in hunk.lines:
        kind = _KINDS.get(line.origin)
        if kind is None:
            continue  # "\ No newline at end of file" markers: the line itself has no line ending
        raw = line.raw_content
        text = raw.decode("utf-8", "replace")
        ends = raw.endswith(b"\n")
        text = text[:-1] if ends else text
        if text.endswith("\r"):
            text = text[:-1]
        old = line.old_lineno if line.old_lineno > 0 else None
        new = line.new_lineno if line.new_lineno > 0 else None
        lines.append(DiffLine(kind, old, new, text, not ends))
    header = hunk.header.rstrip("\r\n")
    return Hunk(header, hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines, tuple(lines))


def read_new_side(repo: pygit2.Repository, spec: DiffSpec, path: str) -> str | None:
    """The text of `path` on the new side of `spec`."""
    with git_errors(f"read {path}"):
        match spec.kind:
            case DiffKind.WORKING | DiffKind.UNSTAGED:
                return _read_file(_with_workdir(repo).workdir, path)
            case DiffKind.WORKTREE:
                return _read_file(spec.head or "", path)
            case DiffKind.STAGED:
                index = _fresh_index(repo)
                entry = index[path] if path in index else None
                return None if entry is None else _text(repo[entry.id])
            case DiffKind.COMMIT | DiffKind.BRANCH:
                tree = resolve_commit(repo, spec.head or "").tree
                return _text(tree[path]) if path in tree else None
    return None


def _read_file(folder: str, path: str) -> str | None:
    try:
        with open(os.path.join(folder, path), "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _text(obj: pygit2.Object) -> str | None:
    return obj.data.decode("utf-8", "replace") if isinstance(obj, pygit2.Blob) else None


# -- one hunk at a time --


def stage_hunk(repo: pygit2.Repository, path: str, hunk: Hunk) -> None:
    with git_errors(f"stage a hunk of {path}"):
        index = _fresh_index(_with_workdir(repo))
        if path not in index:
            raise AppError(ErrorCode.GIT, f"{path} is not tracked yet: stage the whole file.")
        raw = _find_raw_hunk(index.diff_to_workdir(context_lines=CONTEXT_LINES), path, hunk)
        _write_entry(repo, index, path, apply_hunk(repo[index[path].id].data, raw), index[path].mode)


def unstage_hunk(repo: pygit2.Repository, path: str, hunk: Hunk) -> None:
    with git_errors(f"unstage a hunk of {path}"):
        index = _fresh_index(_with_workdir(repo))
        if path not in index:
            raise AppError(ErrorCode.GIT, f"{path} has nothing staged.")
        tree = head_tree(repo)
        raw = _find_raw_hunk(tree.diff_to_index(index, context_lines=CONTEXT_LINES), path, hunk)
        content = apply_hunk(repo[index[path].id].data, raw, reverse=True)
        if not content and path not in tree:
            index.remove(path)  # the hunk was the whole of a newly added file
            index.write()
            return
        _write_entry(repo, index, path, content, index[path].mode)


def _find_raw_hunk(diff: pygit2.Diff, path: str, wanted: Hunk) -> RawHunk:
    for patch in diff:
        if patch is None or patch.delta.new_file.path != path:
            continue
        for hunk in patch.hunks:
            if _hunk(hunk) == wanted:
                return RawHunk(
                    hunk.old_start,
                    hunk.old_lines,
                    hunk.new_start,
                    hunk.new_lines,
                    tuple(RawLine(line.origin, line.raw_content) for line in hunk.lines if line.origin in " +-"),
                )
    raise AppError(ErrorCode.GIT, f"{path} changed since this diff was computed; refresh and try again.")


def _write_entry(repo: pygit2.Repository, index: pygit2.Index, path: str, content: bytes, mode: int) -> None:
    blob = repo.create_blob(content)
    index.add(pygit2.IndexEntry(path, blob, mode))
    index.write()
