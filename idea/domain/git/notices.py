"""What the Git panel tells a person about an unusual repository, and the gestures such a state refuses.

Nothing here changes the repository: IdeA never aborts, continues or repairs a half-done operation for the
person; it says what is going on and which command would do it.
"""

from __future__ import annotations

from enum import StrEnum

from idea.domain.git.model import RepoFacts, RepoState, short_oid
from idea.domain.wording import counted

OUTGOING_NOTE = (
    "Push, fetch and pull requests are not done from this panel: they need your credentials and talk to a "
    "remote, so IdeA leaves them to you (or to an agent you allow) in a terminal, e.g. `git push`."
)


class Gesture(StrEnum):
    STAGE = "stage"
    BRANCH = "create or delete branches"
    COMMIT = "commit"
    SWITCH = "switch branches"
    MERGE = "merge"
    WORKTREE = "create worktrees"


_STATE_WORDS = {
    RepoState.MERGE: ("A merge", "git merge --abort"),
    RepoState.REBASE: ("A rebase", "git rebase --continue` or `git rebase --abort"),
    RepoState.CHERRY_PICK: ("A cherry-pick", "git cherry-pick --continue` or `git cherry-pick --abort"),
    RepoState.REVERT: ("A revert", "git revert --continue` or `git revert --abort"),
    RepoState.BISECT: ("A bisect", "git bisect reset"),
    RepoState.APPLY_MAILBOX: ("A `git am` session", "git am --continue` or `git am --abort"),
}


def notices(facts: RepoFacts) -> list[str]:
    """One sentence per unusual fact, most pressing first."""
    found: list[str] = []
    if facts.index_lock:
        found.append(
            f"Another git process holds {facts.index_lock}. IdeA does not stage, unstage, commit or switch "
            "branches until it is gone. If no git command is running, the process that made it has died: "
            "delete the file."
        )
    if facts.state is RepoState.MERGE:
        conflicts = f" {_still_conflicting(facts.conflicted_paths)}." if facts.conflicted_paths else ""
        found.append(
            "A merge is in progress." + conflicts + " Resolve and stage the files, then commit to conclude it, "
            "or run `git merge --abort` in a terminal. IdeA does not abort it for you."
        )
    elif facts.state is not RepoState.NONE:
        what, command = _STATE_WORDS[facts.state]
        found.append(
            f"{what} is in progress. Finish it in a terminal (`{command}`); until then IdeA only stages files "
            "(to resolve conflicts) and does not commit or switch branches."
        )
    if facts.bare:
        found.append(
            "This is a bare repository: it has no working tree, so there is nothing to stage or commit. "
            "Branches and history are shown."
        )
    if facts.head.detached:
        found.append(
            f"HEAD is detached at {short_oid(facts.head.oid)}: new commits belong to no branch. Create a branch "
            "to keep them."
        )
    if facts.shallow:
        found.append("This is a shallow clone: history stops at the depth it was cloned with.")
    return found


def refusal(facts: RepoFacts, gesture: Gesture) -> str | None:
    """Why `gesture` is not possible now, or None when it is."""
    if gesture is Gesture.BRANCH:
        return None  # only a ref changes: fine in any state, bare repositories included
    if facts.bare and gesture is not Gesture.MERGE:
        return f"A bare repository has no working tree: IdeA cannot {gesture.value} here."
    if facts.index_lock and gesture in (Gesture.STAGE, Gesture.COMMIT, Gesture.SWITCH, Gesture.MERGE):
        return f"Another git process holds {facts.index_lock}; wait for it to finish (or delete the file if none runs)."
    if gesture is Gesture.STAGE:
        return None
    if facts.state is RepoState.MERGE:
        if gesture is Gesture.COMMIT:
            if facts.conflicted_paths:
                return (
                    f"{_still_conflicting(facts.conflicted_paths)}: resolve the conflicts and stage the result "
                    "before committing the merge."
                )
            return None
        return "A merge is in progress: commit it or abort it (`git merge --abort`) first."
    if facts.state is not RepoState.NONE:
        what, command = _STATE_WORDS[facts.state]
        return f"{what} is in progress: finish it in a terminal (`{command}`) first."
    if gesture is Gesture.MERGE and facts.head.unborn:
        return "There is no commit yet to merge into."
    return None


def _still_conflicting(paths: tuple[str, ...]) -> str:
    return f"{counted(len(paths), 'file')} still {'conflicts' if len(paths) == 1 else 'conflict'}"
