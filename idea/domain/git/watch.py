"""Which file-system events can change what the Git panel shows."""

from __future__ import annotations

from idea.domain.project import GITIGNORED_RUNTIME_PATHS, IDEAI_DIR

# Inside the git directory, these never change status, branches or history as the panel shows them.
_GIT_NOISE = ("objects/", "logs/", "lfs/", "hooks/", "fsmonitor--daemon", "modules/")
ATOMIC_TEMP_MARK = ".tmp-"  # IdeA's atomic writes go through `.<name>.tmp-<random>` (renamed at once)


def is_relevant_change(relative: str, *, in_git_dir: bool) -> bool:
    """`relative`: the changed path, '/'-separated, relative to the git directory when `in_git_dir`, else
    to the working tree."""
    path = relative.strip("/")
    if not path:
        return False
    name = path.rsplit("/", 1)[-1]
    if in_git_dir:
        return not name.endswith(".lock") and not path.startswith(_GIT_NOISE)
    if name.startswith(".") and ATOMIC_TEMP_MARK in name:
        return False
    if path == IDEAI_DIR:
        return False  # the folder itself: the files IdeA versions in it are reported one by one
    if path.startswith(f"{IDEAI_DIR}/"):
        return not any(path == p.rstrip("/") or path.startswith(p) for p in GITIGNORED_RUNTIME_PATHS)
    return True
