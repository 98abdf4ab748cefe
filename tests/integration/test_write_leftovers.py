"""The temporary files of atomic writes a crash interrupted are removed at start: IdeA's own names only,
regular files only, old enough only."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from idea.bootstrap import bootstrap
from idea.infrastructure import fs
from idea.infrastructure.write_leftovers import LEFTOVER_MIN_AGE_S, is_write_leftover_name, sweep_write_leftovers

AN_HOUR_AGO = time.time() - 3600


def aged(path: Path, at: float = AN_HOUR_AGO) -> Path:
    os.utime(path, (at, at))
    return path


def leftover_name_of_a_real_write(folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The temporary name fs.atomic_write_json really uses, caught as the rename is about to happen."""
    seen: list[str] = []

    def crash(source: str, _target: object) -> None:
        seen.append(Path(source).name)
        raise KeyboardInterrupt  # the process dies here

    monkeypatch.setattr(fs, "replace_file", crash)
    with pytest.raises(KeyboardInterrupt):
        fs.atomic_write_json(folder / "layouts.json", {"version": 1})
    monkeypatch.undo()
    return seen[0]


def test_the_names_of_real_atomic_writes_are_recognised_and_nothing_else(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    assert is_write_leftover_name(leftover_name_of_a_real_write(tmp_path, monkeypatch))
    for foreign in ("layouts.json", ".layouts.json.tmp-abc", "x.json.tmp-abcdefgh", ".layouts.json.tmp-ABCDEFGH",
                    ".tmp-abcdefgh", "req.json.tmp", ".layouts.json.tmp-abcdefgh.bak"):
        assert not is_write_leftover_name(foreign), foreign


def test_only_old_leftovers_are_swept_and_other_files_stay(tmp_path: Path) -> None:
    nested = tmp_path / "run" / "agent-1"
    nested.mkdir(parents=True)
    old = nested / ".settings.json.tmp-k2j4h5g6"
    old.write_text("{")
    aged(old)
    fresh = tmp_path / ".agents.json.tmp-a1b2c3d4"
    fresh.write_text("{")  # a write of another IdeA process may be in progress
    theirs = tmp_path / "notes.tmp-abcdefgh"
    theirs.write_text("mine")
    aged(theirs)
    folder_named_so = tmp_path / ".cache.tmp-zzzzzzzz"
    folder_named_so.mkdir()
    aged(folder_named_so)
    link = tmp_path / ".link.json.tmp-q1w2e3r4"
    link.symlink_to(theirs)

    removed = sweep_write_leftovers(tmp_path, now_s=time.time())

    assert removed == [old]
    assert fresh.exists() and theirs.exists() and folder_named_so.is_dir() and link.is_symlink()
    assert sweep_write_leftovers(tmp_path, now_s=time.time() + LEFTOVER_MIN_AGE_S + 1) == [fresh]


def test_opening_a_project_and_starting_idea_sweep_their_folders(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    (project / ".ideai" / "agents").mkdir(parents=True)
    (data / "templates").mkdir(parents=True)
    leftovers = [
        project / ".gitignore.tmp-aaaaaaaa",
        project / ".ideai" / ".layouts.json.tmp-bbbbbbbb",
        project / ".ideai" / "agents" / ".main.md.tmp-cccccccc",
        data / ".workspace.json.tmp-dddddddd",
        data / "templates" / ".index.json.tmp-eeeeeeee",
    ]
    for path in leftovers:
        path.write_text("half")
        aged(path)

    app = bootstrap(data_dir=data)
    try:
        app.core.submit(app.projects.open(str(project))).result(60)
    finally:
        app.shutdown()

    assert [path for path in leftovers if path.exists()] == []
    log = (data / "logs" / "idea.log").read_text()
    assert "removed" in log and ".workspace.json.tmp-dddddddd" in log
