"""File-door fuzz (issue 16): generated files in a real IdeA's request folders — requests of every type with
every field good, wrong, borderline or random; binary, truncated and huge files; files written in place,
in two parts, or never finished; FIFOs, sockets, symlinks (to a request, to nothing, to a FIFO, to a
device), hard links, folders named like requests, names outside the id pattern, folders of no agent, and
ids used again. Every file must be answered in its `out/` folder and removed; at the end the log holds no
traceback, the door still serves, and no control character reached live-state or a persona.

The short form runs with every test run; the long one from docs/RELIABILITY.md:

    IDEA_FUZZ_FILES=10000 .venv/bin/python -m pytest tests/integration/test_file_door_fuzz.py -s
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from idea.infrastructure.fileproto import watcher
from idea.infrastructure.fileproto.watcher import REQUEST_MAX_BYTES
from idea.infrastructure.mcp.tools import TOOLS
from tests.integration.fuzz_support import (
    control_characters_stored,
    fuzz_count,
    names_of,
    open_fuzz_world,
    tracebacks,
)
from tests.integration.scenario_support import Scenario, ScenarioFactory, scenario_factory
from tests.tool_strategies import JSON_VALUES, calls

SHORT_FILES = 300
PER_EXAMPLE = 10
ANSWER_BOUND_S = 30.0
KINDS = (
    ("request", 30),
    ("partial", 4),
    ("unfinished", 1),
    ("binary", 4),
    ("truncated", 3),
    ("huge", 2),
    ("fifo", 2),
    ("socket", 1),
    ("symlink", 3),
    ("hardlink", 1),
    ("directory", 1),
    ("bad-name", 2),
    ("foreign-folder", 1),
    ("reused-id", 2),
)


@dataclass
class Case:
    kind: str
    name: str  # the file name, `.json` included
    body: bytes
    folder: str  # the request folder: Main's id, or another name
    extra: Any = None


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScenarioFactory]:
    monkeypatch.setattr(watcher, "SWEEP_INTERVAL_S", 0.2)
    monkeypatch.setattr(watcher, "STALL_S", 0.6)
    yield from scenario_factory(tmp_path, monkeypatch)


def request_bodies(names: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    def as_request(tool: Any, arguments: dict[str, Any], envelope: dict[str, Any]) -> bytes:
        fields = {("targetAgent" if key == "target" else key): value for key, value in arguments.items()}
        document = {"type": tool.request_type, **fields, **envelope}
        return json.dumps(document).encode("utf-8", "surrogatepass")

    envelope = st.fixed_dictionaries(
        {}, optional={"requestedBy": st.sampled_from(["Main", "main", "QA", "", 7]), "requestId": st.just("other")}
    )
    typed = st.sampled_from(TOOLS).flatmap(lambda tool: st.tuples(st.just(tool), calls(tool, names), envelope))
    odd = JSON_VALUES.map(lambda value: json.dumps(value).encode("utf-8", "surrogatepass"))
    return st.one_of(typed.map(lambda parts: as_request(*parts)), typed.map(lambda parts: as_request(*parts)), odd)


@st.composite
def cases(draw: st.DrawFn, names: tuple[str, ...]) -> Case:
    kind = draw(st.sampled_from([kind for kind, weight in KINDS for _ in range(weight)]))
    body = draw(request_bodies(names))
    name = "ID.json"
    folder = "MAIN"
    if kind == "binary":
        body = draw(st.binary(min_size=0, max_size=2000))
    elif kind == "truncated":
        body = body[: draw(st.integers(0, max(0, len(body) - 1)))]
    elif kind == "huge":
        body = b'{"type": "agent.list", "pad": "' + b"x" * draw(st.integers(REQUEST_MAX_BYTES, 3 * REQUEST_MAX_BYTES)) + b'"}'
    elif kind == "bad-name":
        # Each name but ".json" carries the file's own number: two files of one batch never share a path (the
        # door answers a file rewritten while it serves it in its first version, then deletes the path).
        name = draw(st.sampled_from(["has space ID.json", "-ID.json", ".json", "éID.json", "ID:b.json", "x" * 130 + "ID.json"]))
    elif kind == "foreign-folder":
        folder = draw(st.sampled_from(["Main", "not-an-agent", "..."]).filter(lambda f: f != "..."))
    extra = draw(st.sampled_from(["request", "dangling", "fifo", "device", "directory"])) if kind == "symlink" else None
    return Case(kind, name, body, folder, extra)


def _path_in_batch(case: Case) -> object:
    """What makes two cases of a batch write the same file: only a fixed name (the others get a number)."""
    return (case.folder, case.name) if "ID" not in case.name else id(case)


class FileFuzzer:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.requests = scenario.project_dir / ".ideai" / "requests"
        self.main = scenario.id_of("Main")
        self.elsewhere = Path(tempfile.mkdtemp(prefix="idea-ff-", dir="/tmp"))
        self.count = 0
        self.kinds: Counter[str] = Counter()
        self.verdicts: Counter[str] = Counter()
        self.answered_ids: list[str] = []
        self.failures: list[str] = []

    def inbox(self, folder: str) -> Path:
        path = self.requests / folder / "in"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def run_batch(self, batch: list[Case]) -> None:
        waits: list[tuple[Case, Path, Path]] = []
        holders: list[threading.Thread] = []
        for case in batch:
            self.count += 1
            self.kinds[case.kind] += 1
            folder = self.main if case.folder == "MAIN" else case.folder
            stem = f"f{self.count}"
            if case.kind == "reused-id" and self.answered_ids:
                stem = self.answered_ids.pop(0)  # each answered id used again once
            name = case.name.replace("ID", stem)
            path = self.inbox(folder) / name
            answer = self.requests / folder / "out" / name
            answer.unlink(missing_ok=True)
            holder = self.create(case, path)
            if holder is not None:
                holders.append(holder)
            if case.kind == "directory":
                waits.append((case, path, Path()))  # not a request: nothing to answer, the door goes on
            else:
                waits.append((case, path, answer))
        deadline = time.monotonic() + ANSWER_BOUND_S
        for case, path, answer in waits:
            if answer == Path():
                continue
            while not (answer.exists() and not os.path.lexists(path)):
                if time.monotonic() > deadline:
                    raise AssertionError(f"no answer for a {case.kind} file {path.name!r} ({case.extra})")
                time.sleep(0.02)
            self.check_answer(case, answer)
        for holder in holders:
            holder.join(ANSWER_BOUND_S)
        for case, path, answer in waits:
            if answer == Path():
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() and not path.is_symlink() else path.unlink()

    def check_answer(self, case: Case, answer: Path) -> None:
        document = json.loads(answer.read_bytes())
        assert isinstance(document.get("ok"), bool) and "requestId" in document, document
        if document["ok"]:
            self.verdicts["ok"] += 1
        else:
            error = document["error"]
            assert error["code"] and error["message"], document
            self.verdicts[error["code"]] += 1
        if case.kind in ("request", "partial") and case.folder == "MAIN" and len(self.answered_ids) < 50:
            self.answered_ids.append(answer.name[: -len(".json")])

    def create(self, case: Case, path: Path) -> threading.Thread | None:
        if case.kind in ("request", "binary", "truncated", "huge", "bad-name", "foreign-folder", "reused-id"):
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_bytes(case.body)
            temporary.replace(path)
        elif case.kind == "partial":
            with path.open("wb") as handle:  # in place, in two writes: the door sees it half-written
                handle.write(case.body[: len(case.body) // 2])
                handle.flush()
                time.sleep(0.05)
                handle.write(case.body[len(case.body) // 2 :])
        elif case.kind == "unfinished":
            handle = path.open("wb")
            handle.write(case.body[: len(case.body) // 2])
            handle.flush()

            def hold_open() -> None:  # never closed while the door decides: only the stall sweep answers it
                deadline = time.monotonic() + ANSWER_BOUND_S
                while os.path.lexists(path) and time.monotonic() < deadline:
                    time.sleep(0.05)
                handle.close()

            holder = threading.Thread(target=hold_open)
            holder.start()
            return holder
        elif case.kind == "fifo":
            os.mkfifo(path)
        elif case.kind == "socket":
            short = tempfile.mkdtemp(prefix="idea-fs-", dir="/tmp")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(f"{short}/s")
            os.rename(f"{short}/s", path)
            listener.close()
            os.rmdir(short)
        elif case.kind == "symlink":
            target = {
                "request": self.elsewhere / f"{path.name}-target",
                "dangling": self.elsewhere / "nothing-here",
                "fifo": self.elsewhere / f"{path.name}-fifo",
                "device": Path("/dev/zero"),
                "directory": self.elsewhere,
            }[case.extra]
            if case.extra == "request":
                target.write_bytes(case.body)
            elif case.extra == "fifo":
                os.mkfifo(target)
            path.symlink_to(target)
        elif case.kind == "hardlink":
            source = self.elsewhere / f"{path.name}-source"
            source.write_bytes(case.body)
            os.link(source, path)
        elif case.kind == "directory":
            path.mkdir()
        return None

    def close(self) -> None:
        shutil.rmtree(self.elsewhere, ignore_errors=True)


@pytest.mark.timeout(7200)
def test_file_door_fuzz(world: ScenarioFactory) -> None:
    files_wanted = fuzz_count("IDEA_FUZZ_FILES", SHORT_FILES)
    scenario = open_fuzz_world(world)
    names = names_of(scenario)
    fuzzer = FileFuzzer(scenario)
    started = time.monotonic()
    try:
        fuzzer.run_batch([Case("huge", "ID.json", b"{" + b" " * (50 * 1024 * 1024) + b"}", "MAIN")])

        @settings(
            max_examples=max(1, files_wanted // PER_EXAMPLE),
            deadline=None,
            database=None,
            phases=(Phase.generate,),  # no shrinking: a failed batch waits its whole bound each time
            suppress_health_check=list(HealthCheck),
        )
        @given(batch=st.lists(cases(names), min_size=PER_EXAMPLE, max_size=PER_EXAMPLE, unique_by=_path_in_batch))
        def one_batch(batch: list[Case]) -> None:
            fuzzer.run_batch(batch)

        one_batch()
    finally:
        fuzzer.close()

    elapsed = time.monotonic() - started
    print(
        f"file door fuzz: {fuzzer.count} files in {elapsed:.1f} s; kinds {dict(fuzzer.kinds)}; "
        f"answers {dict(fuzzer.verdicts)}"
    )
    assert tracebacks(scenario) == []
    scenario.live_state_written()
    assert control_characters_stored(scenario.project_dir) == []
    request_id = scenario.write_request("Main", {"type": "agent.list"})  # the door still serves
    deadline = time.monotonic() + ANSWER_BOUND_S
    while scenario.response("Main", request_id) is None:
        assert time.monotonic() < deadline, "the door stopped serving"
        time.sleep(0.05)
    assert scenario.response("Main", request_id)["ok"] is True  # type: ignore[index]
