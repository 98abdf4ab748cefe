"""MCP fuzz (issue 16): generated lines against a real IdeA's socket — calls of every tool with every field
good, wrong, borderline or random; broken envelopes (ids of every type, missing or odd methods, params of
the wrong shape); random bytes; oversize lines. Each line is followed by a `ping`, and every request must get
exactly one answer before the ping's; at the end the log holds no traceback, the connection still serves,
and no control character reached live-state or a persona.

The short form runs with every test run; the long one from docs/RELIABILITY.md:

    IDEA_FUZZ_CALLS=10000 .venv/bin/python -m pytest tests/integration/test_mcp_fuzz.py -s
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idea.infrastructure.mcp.tools import TOOL_NAMES, TOOLS
from idea.infrastructure.mcp.wire import LINE_LIMIT
from tests.integration.fuzz_support import (
    LineClient,
    LineVerdict,
    control_characters_stored,
    fuzz_count,
    names_of,
    open_fuzz_world,
    owed_by,
    tracebacks,
)
from tests.integration.scenario_support import ScenarioFactory, scenario_factory
from tests.tool_strategies import JSON_SCALARS, JSON_VALUES, calls

SHORT_CALLS = 250
GOOD_ID, BAD_IDS = "good", st.sampled_from([True, False, None, 1.5, -0.0, [1], {"n": 1}, 2**70])


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScenarioFactory]:
    yield from scenario_factory(tmp_path, monkeypatch)


def tool_call_params(names: tuple[str, ...]) -> st.SearchStrategy[Any]:
    by_tool = st.sampled_from(TOOLS).flatmap(
        lambda tool: calls(tool, names).map(lambda arguments: {"name": tool.name, "arguments": arguments})
    )
    odd_name = st.fixed_dictionaries(
        {"name": st.one_of(st.text(max_size=20), JSON_SCALARS), "arguments": JSON_VALUES}
    )
    odd_arguments = st.fixed_dictionaries(
        {"name": st.sampled_from(TOOL_NAMES), "arguments": st.one_of(JSON_SCALARS, st.lists(JSON_SCALARS))}
    )
    return st.one_of(by_tool, by_tool, by_tool, odd_name, odd_arguments, JSON_VALUES)


@st.composite
def lines(draw: st.DrawFn, names: tuple[str, ...]) -> bytes:
    kind = draw(st.sampled_from(["call"] * 6 + ["envelope", "envelope", "garbage", "method"]))
    if kind == "garbage":
        raw = draw(st.binary(min_size=1, max_size=300) | st.text(max_size=200).map(str.encode))
        raw = raw.replace(b"\n", b" ")
        return raw if raw.strip() else b"?"
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": GOOD_ID}
    if kind == "call":
        message.update(method="tools/call", params=draw(tool_call_params(names)))
    elif kind == "method":
        message.update(
            method=draw(st.sampled_from(["ping", "tools/list", "initialize", "resources/list", "x/y", ""])),
            params=draw(st.one_of(st.none(), JSON_VALUES)),
        )
    else:
        message.update(method=draw(st.one_of(st.sampled_from(["tools/call", "ping"]), JSON_SCALARS)))
        message["params"] = draw(st.one_of(tool_call_params(names), JSON_VALUES))
        for key in draw(st.sets(st.sampled_from(["jsonrpc", "id", "method", "params"]), max_size=2)):
            del message[key]
        if "id" in message and draw(st.booleans()):
            message["id"] = draw(BAD_IDS)
        if "jsonrpc" in message and draw(st.booleans()):
            message["jsonrpc"] = draw(JSON_SCALARS)
    return json.dumps(message, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")


class Fuzzer:
    def __init__(self, connect: Callable[[], LineClient]) -> None:
        self.connect = connect
        self.client = connect()
        self.sent = 0
        self.answers: Counter[str] = Counter()
        self.failures: list[str] = []
        self.may_answer: set[str] = set()

    def check(self, line: bytes) -> None:
        """One line and its sentinel; after a failure the next line gets a fresh connection, so that what
        the failed one left unread never blames another line (Hypothesis replays lines to shrink them)."""
        try:
            self._check(line)
        except (AssertionError, OSError) as failure:
            self.failures.append(f"{failure} <- {line[:200]!r}")
            self.client.close()
            self.client = self.connect()
            self.may_answer.clear()
            raise

    def _check(self, line: bytes) -> None:
        self.sent += 1
        request_id: Any = f"fuzz-{self.sent}"
        line = line.replace(json.dumps(GOOD_ID).encode(), json.dumps(request_id).encode(), 1)
        verdict = owed_by(line) if len(line) <= LINE_LIMIT else LineVerdict(None, (0,), (1,))  # never read
        sentinel = f"sentinel-{self.sent}"
        self.client.send(line)
        self.client.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).encode())
        if verdict.request_id is not None and 0 in verdict.id_answers:
            self.may_answer.add(_key(verdict.request_id))  # an answer may come, at most once, maybe later
        owed = {_key(sentinel)} | ({_key(verdict.request_id)} if verdict.id_answers == (1,) else set())
        nulls = 0
        started = time.monotonic()
        while owed:
            answer = self.client.receive()
            answered = answer.get("id")
            if answered is None:
                assert _key(sentinel) in owed, f"an error for no line after the sentinel: {answer}"
                nulls += 1
                self.answers[f"{_kind_of(answer)} (no id)"] += 1
                continue
            key = _key(answered)
            if key in self.may_answer:
                self.may_answer.discard(key)
                continue
            assert key in owed, f"an answer nobody was owed (a second answer?): {answer} for {line[:300]!r}"
            owed.discard(key)
            if key != _key(sentinel):
                self.answers[_kind_of(answer)] += 1
        assert nulls in verdict.null_answers, f"{nulls} null-id errors for {line[:300]!r}"
        assert time.monotonic() - started < 30


def _kind_of(answer: dict[str, Any]) -> str:
    if "error" in answer:
        return f"json-rpc {answer['error'].get('code')}"
    result = answer.get("result") or {}
    return "tool error" if result.get("isError") else "result"


def _key(request_id: object) -> str:
    return json.dumps(request_id)


@pytest.mark.timeout(3600)
def test_mcp_fuzz(world: ScenarioFactory) -> None:
    calls_wanted = fuzz_count("IDEA_FUZZ_CALLS", SHORT_CALLS)
    scenario = open_fuzz_world(world)
    names = names_of(scenario)
    fuzzer = Fuzzer(lambda: LineClient(scenario))
    started = time.monotonic()
    oversize = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "' + b"y" * LINE_LIMIT + b'"}'
    for line in (oversize, b"z" * (LINE_LIMIT + 1)):
        fuzzer.check(line)

    @settings(max_examples=calls_wanted, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(line=lines(names))
    def one_line(line: bytes) -> None:
        fuzzer.check(line)

    try:
        one_line()
    finally:
        if fuzzer.failures:
            print("mcp fuzz, first failure: " + fuzzer.failures[0])

    elapsed = time.monotonic() - started
    print(f"mcp fuzz: {fuzzer.sent} lines in {elapsed:.1f} s; answers {dict(fuzzer.answers)}")
    assert tracebacks(scenario) == []
    scenario.live_state_written()
    assert control_characters_stored(scenario.project_dir) == []
    fuzzer.check(b'{"jsonrpc": "2.0", "id": "good", "method": "tools/call", "params": {"name": "idea_list_agents"}}')
    second = LineClient(scenario)  # the server still accepts connections
    second.close()
    fuzzer.client.close()
