"""Crash consistency: IdeA killed with SIGKILL at random points while it writes (`crash_worker.py`); after
each kill every file parses, nothing is half-written, and the next start opens everything without a repair
or a word to the person. Two IdeA processes saving the shared user-data files at once corrupt nothing; a
second IdeA process opening a project another one has open is refused, and the first goes on unharmed.

The normal run kills a few times and races a few dozen saves; `IDEA_CRASH_ROUNDS=100 IDEA_RACE_SAVES=500` is
the full suite (its figures are in docs/RELIABILITY.md). A failure names its seed; `IDEA_CRASH_SEED=<seed>`
replays it.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from idea.bootstrap import bootstrap
from idea.domain.errors import AppError, ErrorCode
from idea.domain.events import ProjectProblem
from idea.infrastructure.write_leftovers import LEFTOVER_MIN_AGE_S, is_write_leftover_name

REPO_ROOT = Path(__file__).resolve().parents[2]
ROUNDS = int(os.environ.get("IDEA_CRASH_ROUNDS", "3"))
RACE_SAVES = int(os.environ.get("IDEA_RACE_SAVES", "40"))
SEED = os.environ.get("IDEA_CRASH_SEED") or str(random.randrange(10**9))
READY_TIMEOUT_S = 120  # a safety net around the worker's "ready" line, which a loaded machine delays
KILL_AFTER_S = (0.05, 1.5)  # the worker writes all along: the kill lands at a random point of its work


@dataclass
class Figures:
    rounds: int = 0
    leftovers: int = 0  # temporary files of interrupted writes the kills left (too young to be swept yet)
    steps: int = 0  # the writes the killed workers made, as their last beacons say
    problems: list[str] = field(default_factory=list)


def start_worker(data: Path, project: Path, seed: str) -> subprocess.Popen[str]:
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.crash.crash_worker", str(data), str(project), seed],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "QT_QPA_PLATFORM": "offscreen"},
    )
    assert worker.stdout is not None
    ready, _, _ = select.select([worker.stdout], [], [], READY_TIMEOUT_S)
    line = worker.stdout.readline() if ready else ""
    if line.strip() != "ready":
        worker.kill()
        raise AssertionError(f"the worker did not start (seed {seed}): {worker.communicate()[1][-2000:]}")
    return worker


def files_of(*folders: Path) -> list[Path]:
    return [path for folder in folders for path in folder.rglob("*") if path.is_file() and not path.is_symlink()]


def check_every_file(data: Path, project: Path, seed: str) -> int:
    """Every file IdeA writes is whole; returns how many write leftovers there are (allowed: swept later)."""
    ideai = project / ".ideai"
    leftovers = 0
    for path in files_of(ideai, data):
        where = f"{path} (seed {seed})"
        assert ".corrupt-" not in path.name, f"a file was set aside: {where}"
        if is_write_leftover_name(path.name):
            leftovers += 1
        elif path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))  # raises on a half-written document
        elif path.suffix == ".jsonl":
            text = path.read_text(encoding="utf-8")
            # Empty when killed between its creation and its first line: no line, so none torn (and read as
            # an empty log: tests/integration/test_conversation_log_files.py).
            assert text == "" or text.endswith("\n"), f"a torn last line: {where}"
            for line in text.splitlines():
                json.loads(line)
        elif path.name == "idea.log":
            written = path.read_bytes()
            assert written == b"" or written.endswith(b"\n"), f"a torn diagnostics line: {where}"
    manifest = json.loads((ideai / "agents.json").read_text())
    for agent in manifest["agents"]:
        assert (ideai / agent["mdPath"]).is_file(), f"{agent['name']}'s persona is missing (seed {seed})"
    return leftovers


def check_references_to_the_team(project: Path, seed: str) -> None:
    """After a start, what names an agent names one of the team: cells, live-state rows."""
    ideai = project / ".ideai"
    team = {agent["agentId"] for agent in json.loads((ideai / "agents.json").read_text())["agents"]}
    pinned = set(_pins(json.loads((ideai / "layouts.json").read_text())))
    rows = {row["agentId"] for row in json.loads((ideai / "live-state.json").read_text())["entries"]} if (
        ideai / "live-state.json").exists() else set()
    assert pinned <= team and rows <= team, f"references to agents not in the team (seed {seed})"


def _pins(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["agent"]] if isinstance(node.get("agent"), str) and "id" in node else []
        return found + [pin for value in node.values() for pin in _pins(value)]
    if isinstance(node, list):
        return [pin for value in node for pin in _pins(value)]
    return []


def next_start(data: Path, project: Path) -> list[str]:
    """IdeA started again on the same files: what it had to tell the person (nothing, when all is whole)."""
    app = bootstrap(data_dir=data)
    told: list[str] = [*app.startup_problems()]
    app.events.subscribe(lambda event: told.append(event.message) if isinstance(event, ProjectProblem) else None)
    try:
        runtime = app.core.submit(app.projects.open(str(project))).result(60)
        told += runtime.problems
    finally:
        app.shutdown()
    return told


def last_step(data: Path) -> int:
    log = (data / "logs" / "idea.log").read_text(errors="replace").splitlines()
    steps = [int(line.rsplit(" ", 1)[1]) for line in log if "[crash-worker] step " in line]
    return steps[-1] if steps else 0


def crash_rounds(tmp_path: Path, rounds: int, seed: str) -> Figures:
    data, project = tmp_path / "data", tmp_path / "project"
    project.mkdir()
    rng = random.Random(seed)
    figures = Figures()
    for number in range(rounds):
        round_seed = f"{seed}-{number}"
        worker = start_worker(data, project, round_seed)
        time.sleep(rng.uniform(*KILL_AFTER_S))  # the random point of the kill (nothing to wait for)
        worker.send_signal(signal.SIGKILL)
        _, errors = worker.communicate(timeout=60)
        assert worker.returncode == -signal.SIGKILL, f"the worker ended before the kill (seed {round_seed}): {errors}"
        figures.leftovers = check_every_file(data, project, round_seed)
        figures.problems += next_start(data, project)
        assert not figures.problems, f"the next start needed a repair (seed {round_seed}): {figures.problems}"
        check_references_to_the_team(project, round_seed)
        figures.steps = max(figures.steps, last_step(data))
        figures.rounds += 1
    return figures


@pytest.mark.timeout(max(300, ROUNDS * 30))  # a full run kills a hundred times
def test_idea_killed_while_it_writes_leaves_every_file_whole(tmp_path: Path) -> None:
    figures = crash_rounds(tmp_path, ROUNDS, SEED)

    print(f"crash consistency: seed {SEED}, {figures.rounds} kills, {figures.leftovers} temporary files of "
          f"interrupted writes, {figures.steps} writes in the longest-lived worker, no file set aside, "
          "no repair needed")
    # The leftovers of interrupted writes are swept at the next start once they are old enough.
    data, ideai = tmp_path / "data", tmp_path / "project" / ".ideai"
    old = time.time() - LEFTOVER_MIN_AGE_S - 60
    for path in files_of(data, ideai):
        if is_write_leftover_name(path.name):
            os.utime(path, (old, old))
    assert next_start(data, tmp_path / "project") == []
    assert [p for p in files_of(data, ideai) if is_write_leftover_name(p.name)] == []


def test_two_idea_processes_saving_the_user_data_at_once_corrupt_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bootstrap(data_dir=data).shutdown()
    racers = [
        subprocess.Popen([sys.executable, "-m", "tests.crash.crash_worker", "race", str(data), name, str(RACE_SAVES)],
                         cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for name in ("left", "right")
    ]
    reads = 0
    unreadable: list[str] = []

    def read_while_they_write() -> None:
        nonlocal reads
        while any(racer.poll() is None for racer in racers):
            for name in ("workspace.json", "settings.json"):
                try:
                    json.loads((data / name).read_text(encoding="utf-8"))
                    reads += 1
                except FileNotFoundError:
                    continue  # not written yet
                except json.JSONDecodeError as exc:
                    unreadable.append(f"{name}: {exc}")

    reader = threading.Thread(target=read_while_they_write)
    reader.start()
    outcomes = [racer.communicate(timeout=300) for racer in racers]
    reader.join()

    assert [racer.returncode for racer in racers] == [0, 0], [err for _, err in outcomes]
    print(f"user-data race: {RACE_SAVES} saves by each of 2 processes, {reads} whole reads in between, "
          f"{len(unreadable)} unreadable")
    assert unreadable == [] and reads > 0
    windows = json.loads((data / "workspace.json").read_text())["windows"]
    assert len({window["id"].split("-")[0] for window in windows}) == 1  # one writer's whole document, never a mix
    assert [p for p in data.iterdir() if ".corrupt-" in p.name or is_write_leftover_name(p.name)] == []
    log = (data / "logs" / "idea.log").read_text().splitlines()
    for name in ("left", "right"):
        assert sum(f"[race] {name} save " in line for line in log) == RACE_SAVES  # no line lost or torn
    app = bootstrap(data_dir=data)
    try:
        assert app.startup_problems() == []
    finally:
        app.shutdown()


def test_a_second_idea_process_opening_a_project_in_use_is_refused_and_harms_nothing(tmp_path: Path) -> None:
    data, project = tmp_path / "data", tmp_path / "project"
    project.mkdir()
    holder = start_worker(data, project, SEED)  # has the project open and writes all along
    try:
        second = bootstrap(data_dir=data)
        try:
            with pytest.raises(AppError) as refused:
                second.core.submit(second.projects.open(str(project))).result(60)
        finally:
            second.shutdown()
        assert refused.value.code is ErrorCode.PROJECT_ALREADY_OPEN
        assert refused.value.message.startswith("another IdeA process already has this project open")
        assert holder.poll() is None, "the first process stopped"
        steps_before = last_step(data)
        deadline = time.monotonic() + READY_TIMEOUT_S  # a safety net: the first goes on writing
        while last_step(data) == steps_before:
            assert time.monotonic() < deadline, "the first process stopped writing"
            time.sleep(0.05)
    finally:
        holder.kill()
        _, errors = holder.communicate(timeout=60)
    assert holder.returncode == -signal.SIGKILL, f"the first process ended by itself: {errors}"
    check_every_file(data, project, SEED)
    assert next_start(data, project) == []
