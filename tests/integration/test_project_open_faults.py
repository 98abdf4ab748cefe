"""Opening a project folder IdeA cannot write to, with the real doors and stores: a clear refusal."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from idea.application.projects import ProjectRuntime
from idea.bootstrap import bootstrap
from idea.domain.events import ProjectProblem
from tests.conftest import FIXTURES

OPEN_AND_REPORT = """
import sys
from pathlib import Path
from idea.bootstrap import bootstrap
from idea.domain.errors import AppError
app = bootstrap(data_dir=Path(sys.argv[2]))
try:
    app.core.submit(app.projects.open(sys.argv[1])).result(60)
    print("opened")
except AppError as error:
    print(f"{error.code.value}: {error.message}")
finally:
    app.shutdown()
"""


def test_a_read_only_project_folder_is_refused_with_cannot_prepare(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare(1) to mount a read-only folder in a private namespace")
    project = tmp_path / "project"
    project.mkdir()
    script = (
        f'mount --bind "{project}" "{project}" && mount -o remount,bind,ro "{project}" && '
        f'exec "{sys.executable}" -c "$0" "{project}" "{tmp_path / "data"}"'
    )
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, OPEN_AND_REPORT],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    if "mount:" in done.stderr:
        pytest.skip(f"this machine refuses the mount: {done.stderr.strip()}")

    assert done.stdout.strip() == f"STORE: Cannot prepare {project} for IdeA: Read-only file system", done.stderr
    assert not (project / ".ideai").exists()


def open_once(project: Path, data_dir: Path) -> tuple[ProjectRuntime, list[str]]:
    """The project opened by a whole application, which is then shut down; with the problems it told."""
    app = bootstrap(data_dir=data_dir)
    problems: list[str] = []
    app.events.subscribe(lambda event: problems.append(event.message) if isinstance(event, ProjectProblem) else None)
    try:
        return app.core.submit(app.projects.open(str(project))).result(60), problems
    finally:
        app.shutdown()


def test_a_layouts_file_with_an_id_used_twice_is_repaired_in_place_and_told(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".ideai").mkdir(parents=True)
    layouts = json.loads((FIXTURES / "layouts" / "spec_populated.json").read_text())
    twin = copy.deepcopy(layouts["layouts"][0])
    twin["name"] = "Twin"
    layouts["layouts"].append(twin)  # the same layout id, and the same node ids in the second layout
    (project / ".ideai" / "layouts.json").write_text(json.dumps(layouts))
    runtime, problems = open_once(project, tmp_path / "data")

    assert list((project / ".ideai").glob("layouts.json.corrupt-*")) == []  # the file was kept
    names = [layout.name for layout in runtime.document.layouts]
    assert names == [layouts["layouts"][0]["name"], "Twin"]
    first, second = runtime.document.layouts
    assert first.id == layouts["layouts"][0]["id"] and second.id != first.id
    saved = json.loads((project / ".ideai" / "layouts.json").read_text())
    assert [layout["id"] for layout in saved["layouts"]] == [first.id, second.id]
    assert any("layouts.json used an id twice" in message and second.id in message for message in problems)


def test_a_team_with_one_broken_agent_entry_opens_with_the_others_and_says_so(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".ideai" / "agents").mkdir(parents=True)
    (project / ".ideai" / "agents" / "main.md").write_text("# Main\n")
    main = {"agentId": "a6ced819-b893-4213-b003-9e9dc79b9641", "name": "Main", "mdPath": "agents/main.md",
            "profileId": "664cc20c-47b8-53ad-9351-dce3c09c0de4"}
    (project / ".ideai" / "agents.json").write_text(json.dumps({"agents": [main, {"name": "Half-written"}]}))
    runtime, problems = open_once(project, tmp_path / "data")

    assert [agent.name for agent in runtime.agents.manifest().agents] == ["Main"]
    [kept] = (project / ".ideai").glob("agents.json.corrupt-*")
    [told] = [message for message in problems if "agents.json" in message]
    assert told.endswith(f"the file was kept as {kept}. The agents it could read were kept: agents.json was "
                         "rewritten without the others (it is versioned: your version control shows the change).")


def test_closing_everything_while_a_project_opens_closes_it_too(tmp_path: Path) -> None:
    """A quit arriving while a project opens (its socket already listening, the project not yet listed as
    open) closes that project once it has opened, its doors included, rather than leaving it behind."""
    project = tmp_path / "project"
    project.mkdir()
    app = bootstrap(data_dir=tmp_path / "data")

    async def quit_during_the_open() -> tuple[bool, list[str]]:
        opening = asyncio.ensure_future(app.projects.open(str(project)))
        await asyncio.sleep(0)  # the open has started and waits on its doors
        listed_while_opening = bool(app.projects.open_runtimes())
        await app.projects.close_all()
        await opening
        return listed_while_opening, [runtime.root for runtime in app.projects.open_runtimes()]

    try:
        listed_while_opening, still_open = app.core.submit(quit_during_the_open()).result(60)
        log = app.diagnostics.path.read_text(encoding="utf-8")
    finally:
        app.shutdown()

    assert not listed_while_opening  # the quit came in the window the old close_all missed
    assert still_open == []
    assert "[project] opened" in log and "[mcp] closed" in log and "[project] closed" in log
