"""IN-3: a review with two comments produces the exact ticket text of spec 07 §3 and is delivered to the
chosen agent as a human ticket, through the real core (bootstrap, PTY terminals, the fake agent CLI); the
review file keeps the format; the project's runtime files never dirty the tree."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea.domain.git.diff import DiffKind, DiffSpec, LineKind
from idea.domain.git.review import Hint
from tests.git_support import GitHome, RepoBuilder
from tests.integration.scenario_support import ScenarioFactory, eventually, scenario_factory

EXPECTED = (
    "Review of feature/storage-ports against develop — 2 comments:\n"
    "1. src/store.py:42 (new) `def save(self, doc):` — Write atomically (tmp + rename).\n"
    "2. README.md:10 (new) `## Install` — Mention the constraints file.\n"
    "Please address each comment, then summarise what you changed."
)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_home: GitHome) -> Iterator[ScenarioFactory]:
    yield from scenario_factory(tmp_path, monkeypatch)


def storage_branch(project: Path) -> RepoBuilder:
    b = RepoBuilder(project)
    store = [f"# line {n}\n" for n in range(1, 41)]
    readme = [f"line {n}\n" for n in range(1, 10)]
    b.commit("base", {"src/store.py": "".join(store), "README.md": "".join(readme)})
    b.branch("develop")
    b.branch("feature/storage-ports")
    b.checkout("feature/storage-ports")
    b.commit(
        "storage ports",
        {
            "src/store.py": "".join(store) + "class Store:\n    def save(self, doc):\n        pass\n",
            "README.md": "".join(readme) + "## Install\n",
        },
    )
    return b


def new_line(diff, path: str, number: int):  # noqa: ANN001, ANN201
    file = diff.file(path)
    for hunk in file.hunks:
        line = hunk.line_at("new", number)
        if line is not None:
            return hunk, line
    raise AssertionError(f"{path}:{number} is not in the diff")


def test_a_review_of_two_comments_reaches_the_agent_as_one_human_ticket_with_the_exact_text(
    world: ScenarioFactory, git_home: GitHome
) -> None:
    b = storage_branch(world.project_dir)
    scenario = world.open(warm=("QA",), cold=())
    runtime = scenario.runtime
    workspace = runtime.git
    assert workspace is not None
    spec = DiffSpec(DiffKind.BRANCH, base="develop", head="feature/storage-ports")
    diff = scenario.on_core(workspace.git.diff(spec))
    review = scenario.on_core(workspace.reviews.start(diff))
    assert (review.base, review.head) == ("develop", "feature/storage-ports")
    for path, number, text in (
        ("src/store.py", 42, "Write atomically (tmp + rename)."),
        ("README.md", 10, "Mention the constraints file."),
    ):
        hunk, line = new_line(diff, path, number)
        assert line.kind is LineKind.ADDED
        review = scenario.on_core(
            workspace.reviews.comment(
                review.id, path=path, side="new", line=number, hunk_header=hunk.range_header,
                line_text=line.text, text=text,
            )
        )
    assert workspace.reviews.preview(review) == EXPECTED

    ticket, marked = scenario.on_core(workspace.reviews.send(review.id, "QA", runtime.orchestrator))
    assert eventually(lambda: EXPECTED in scenario.user_prompts("QA"), "the review to reach QA")
    assert all(c.sent_ticket == ticket and c.sent_to == "QA" for c in marked.comments)

    saved = json.loads((world.project_dir / ".ideai" / "reviews" / f"{review.id}.json").read_text())
    assert list(saved)[:6] == ["version", "id", "base", "head", "createdAtMs", "comments"]
    assert saved["comments"][1] | {"id": None, "sentAtMs": None} == {
        "path": "README.md", "side": "new", "line": 10, "hunkHeader": "@@ -7,3 +7,4 @@",
        "excerpt": "## Install", "text": "Mention the constraints file.",
        "id": None, "sentTicket": ticket, "sentTo": "QA", "sentAtMs": None,
    }
    # Nothing IdeA wrote while running (layouts, live-state, conversations, run dirs, reviews) dirties the tree.
    status = git_home.git("status", "--porcelain", "-uall", cwd=b.path).splitlines()
    assert sorted(status) == sorted(
        ["?? .gitignore", "?? .ideai/agents.json", *(f"?? .ideai/agents/{n}.md" for n in ("main", "qa"))]
    )

    # The agent addresses the README comment: a later diff hints at it, the other stays open.
    b.commit("install section", {"README.md": "".join(f"line {n}\n" for n in range(1, 10)) + "## Installing\n"})
    later = scenario.on_core(workspace.git.diff(spec))
    hints = scenario.on_core(workspace.reviews.hints(marked, later))
    by_path = {c.path: hints[c.id] for c in marked.comments}
    assert by_path == {"README.md": Hint.CHANGED, "src/store.py": Hint.UNCHANGED}
