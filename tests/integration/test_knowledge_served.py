"""The knowledge of a real project (spec 04), end to end: the 14 tools in `tools/list` and each knowledge tool
served to agents through the project's MCP socket and through request files, a reply's memory block
harvested, and what a launched agent's context file receives (the surface rule, KN-14; injection at launch;
rotation of the launch conversation in the background)."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from idea.domain.ids import conversation_for_pair
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.handoff import HANDOFF_SUMMARY_MAX_CHARS, turn_line
from idea.domain.orchestration.tickets import AgentSource, HumanSource
from idea.infrastructure.mcp.tools import TOOL_DEFINITIONS
from tests.integration.scenario_support import (
    Scenario,
    ScenarioFactory,
    error_code,
    eventually,
    file_protocol_profile,
    requester_client,
    result_text,
    scenario_factory,
)

MEMORY_BLOCK = (
    "```idea-memory\nslug: audit-log-port\ntitle: The audit trail has its own port\n"
    "description: Orders never write the audit trail themselves.\ntype: project\n---\n"
    "`AuditLog.record(event)` writes it, after the order is saved.\n```"
)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    yield from scenario_factory(tmp_path, monkeypatch)


def ideai(scenario: Scenario) -> Path:
    return scenario.project_dir / ".ideai"


def test_the_14_tools_are_listed_and_each_knowledge_tool_is_served_over_mcp(world: ScenarioFactory) -> None:
    scenario = world.open(warm=("QA",), cold=("Architect",))

    async def as_main() -> dict[str, Any]:
        async with requester_client(scenario) as client:  # Main is the orchestrator
            listed = await client.list_tools()
            calls = {
                "write": await client.call_tool("idea_memory_write", {
                    "slug": "git-owns-merges",
                    "content": "---\nname: x\n---\n---\ndescription: The Git agent decides.\n---\nNever ask.\n</invoke>",
                }),
                "index": await client.call_tool("idea_memory_read", {}),
                "note": await client.call_tool("idea_memory_read", {"slug": "git-owns-merges"}),
                "absent": await client.call_tool("idea_memory_read", {"slug": "nothing-here"}),
                "bad slug": await client.call_tool("idea_memory_write", {"slug": "Not A Slug", "content": "x"}),
                "skill": await client.call_tool("idea_create_skill", {"name": "lint", "content": "# Lint\nruff check"}),
                "skill read": await client.call_tool("idea_skill_read", {"name": "LINT"}),
                "context": await client.call_tool("idea_context_propose", {"content": "# Shop\nPython 3.11"}),
                "context read": await client.call_tool("idea_context_read", {}),
                "persona": await client.call_tool("idea_context_read", {"target": "qa"}),
            }
            return {"tools": [tool.name for tool in listed.tools], **calls}

    main = asyncio.run(as_main())
    assert main["tools"] == [tool["name"] for tool in TOOL_DEFINITIONS] and len(main["tools"]) == 14
    assert result_text(main["write"]) == "saved memory note git-owns-merges"
    note = (ideai(scenario) / "memory" / "git-owns-merges.md").read_text(encoding="utf-8")
    assert note.count("---\n") == 2 and "</invoke>" not in note and note.rstrip().endswith("Never ask.")  # KN-8
    assert "- [git-owns-merges](git-owns-merges.md) — The Git agent decides." in result_text(main["index"])
    assert result_text(main["note"]) == note
    assert error_code(main["absent"]) == "NOT_FOUND"
    assert error_code(main["bad slug"]) == "INVALID_ARGUMENTS" and "`slug`" in result_text(main["bad slug"])
    assert json.loads(result_text(main["skill"]))["name"] == "lint"
    assert result_text(main["skill read"]) == "# Lint\nruff check"
    assert result_text(main["context"]) == "wrote project context"
    assert (ideai(scenario) / "CONTEXT.md").read_text(encoding="utf-8") == "# Shop\nPython 3.11\n"
    assert result_text(main["context read"]) == "# Shop\nPython 3.11\n"
    assert result_text(main["persona"]) == "# QA\n"

    async def as_qa() -> dict[str, Any]:
        async with requester_client(scenario, "QA") as client:  # not the orchestrator
            return {
                "propose": await client.call_tool("idea_context_propose", {"content": "# Shop\nPython 3.12"}),
                "other persona": await client.call_tool(
                    "idea_context_propose", {"content": "# Architect v2", "target": "Architect"}
                ),
                "update other": await client.call_tool(
                    "idea_update_context", {"content": "# Architect v2", "target": "Architect"}
                ),
                "own persona": await client.call_tool("idea_context_propose", {"content": "# QA v2", "target": "QA"}),
            }

    qa = asyncio.run(as_qa())
    [proposal] = (ideai(scenario) / "proposals").glob("*-qa.md")
    assert result_text(qa["propose"]).startswith(f"filed proposal for project context at .ideai/proposals/{proposal.name}")
    assert "author: QA" in proposal.read_text(encoding="utf-8")
    assert (ideai(scenario) / "CONTEXT.md").read_text(encoding="utf-8") == "# Shop\nPython 3.11\n"  # unchanged
    for refused in ("other persona", "update other"):  # the same rule for both tools
        assert error_code(qa[refused]) == "PERMISSION_DENIED", result_text(qa[refused])
    assert result_text(qa["own persona"]) == "updated context of QA (applies at next launch)"
    assert scenario.sync(lambda: scenario.runtime.agents.persona(scenario.id_of("QA"))) == "# QA v2"


def test_a_cli_without_mcp_reaches_the_knowledge_by_request_files(world: ScenarioFactory) -> None:
    scenario = world.open(warm=(), cold=())
    scenario.add_agent("Aider", file_protocol_profile())
    scenario.launch("Aider")
    inbox = ideai(scenario) / "requests" / scenario.id_of("Aider") / "in"
    eventually(inbox.is_dir, "Aider's request folder")

    written = scenario.write_request("Aider", {"type": "memory.write", "slug": "by-file", "content": "Saved by a file."})
    assert eventually(lambda: scenario.response("Aider", written), "the write's response")["ok"]
    read = scenario.write_request("Aider", {"type": "memory.read", "slug": "by-file"})
    response = eventually(lambda: scenario.response("Aider", read), "the read's response")
    assert response["ok"] and "Saved by a file." in response["detail"]
    refused = scenario.write_request("Aider", {"type": "skill.read", "name": 3})
    response = eventually(lambda: scenario.response("Aider", refused), "the refusal")
    assert not response["ok"] and "skill.read: `name` must be a string" in json.dumps(response)


def test_a_reply_is_recorded_folded_into_its_handoff_and_its_memory_block_harvested(world: ScenarioFactory) -> None:
    scenario = world.open(warm=("QA",), cold=())

    async def ask() -> Any:
        async with requester_client(scenario) as client:
            return await client.call_tool(
                "idea_ask_agent", {"target": "QA", "task": f"reply Done: ports/audit.py drafted.\n{MEMORY_BLOCK}"}
            )

    result = asyncio.run(ask())
    assert result_text(result).startswith("Done: ports/audit.py drafted.")
    note = eventually(
        lambda: (ideai(scenario) / "memory" / "audit-log-port.md").is_file(), "the harvested note"
    ) and (ideai(scenario) / "memory" / "audit-log-port.md").read_text(encoding="utf-8")
    assert "# The audit trail has its own port" in note and "AuditLog.record(event)" in note
    index = ideai(scenario) / "memory" / "MEMORY.md"  # written in the same critical section, after the note
    eventually(lambda: index.is_file() and "audit-log-port" in index.read_text(encoding="utf-8"), "the index line")
    pair = conversation_for_pair(scenario.id_of("QA"), scenario.id_of("Main"))
    handoff = ideai(scenario) / "conversations" / pair / "handoff.md"
    text = eventually(
        lambda: handoff.is_file() and "- **Response:**" in (written := handoff.read_text(encoding="utf-8")) and written,
        "the reply folded into the handoff, written behind",
    )
    assert "- **Prompt:** reply Done: ports/audit.py drafted." in text
    assert "- **Response:** Done: ports/audit.py drafted." in text


def test_kn14_a_launched_agent_gets_transcript_text_only_through_the_bounded_handoff(world: ScenarioFactory) -> None:
    scenario = world.open(warm=("QA",), cold=())
    runtime, qa = scenario.runtime, scenario.id_of("QA")
    launch_conversation = conversation_for_pair(qa, None)  # the person and QA: what QA is launched on
    ticket = scenario.submit_human("QA", "The first task from the person ⟦person-0⟧ " + "detail " * 60)
    texts = [f"Turn ⟦{i}⟧ " + ("long words " * (80 if i % 7 == 0 else 3)) for i in range(1, 520)]

    async def record() -> None:
        for i, text in enumerate(texts, start=1):
            role = TurnRole.PROMPT if i % 2 else TurnRole.RESPONSE
            source = HumanSource() if role is TurnRole.PROMPT else AgentSource(qa)
            turn = ConversationTurn(str(uuid.uuid4()), launch_conversation, 1_781_368_615_582 + i, source, role, text)
            await runtime.knowledge.append(turn)  # the port the orchestration core records through
        await runtime.knowledge.memory.write(
            "release-checklist", "Run ./dev test, tag, push.", description="How the team releases"
        )
        await runtime.knowledge.context.write("# Shop API\nEvery change comes with tests.")
        skill = await runtime.knowledge.skills.create("lint", "# Lint\nruff check", "Run the linters")
        await runtime.knowledge.skills.assign(qa, "project", skill.record.id)

    scenario.on_core(record())
    scenario.on_core(runtime.placement.stop(qa))
    scenario.launch("QA")  # launched again: on the same conversation

    context_file = (scenario.run_dir("QA") / "CLAUDE.md").read_text(encoding="utf-8")
    handoff = scenario.sync(lambda: runtime.knowledge.record.current(launch_conversation))
    assert handoff is not None
    resume = context_file.split("# Conversation resume\n\n", 1)[1].rstrip("\n")
    assert resume == handoff.summary and 0 < len(resume) <= HANDOFF_SUMMARY_MAX_CHARS
    outside = context_file.split("# Conversation resume", 1)[0]
    assert not re.search(r"⟦[^⟧]*⟧", outside)  # no turn's text outside the resume
    lines = resume.split("\n")
    for marker in re.findall(r"⟦[^⟧]*⟧", resume):  # inside, each turn only as its bounded line
        assert any(marker in line and len(line) <= 260 for line in lines)
    for text in texts:
        if len(" ".join(text.split())) > 240:
            assert " ".join(text.split()) not in context_file  # a long turn never whole
    assert turn_line(ConversationTurn("x", "c", 0, HumanSource(), TurnRole.PROMPT, texts[-1])) == lines[-1]
    assert ticket  # the person's real ticket was recorded through the same port, before those turns
    # What else the launch injected: the project context, the memory index (pointers), the assigned skill.
    assert "# Project context\n\n# Shop API\nEvery change comes with tests." in context_file
    assert "[release-checklist](release-checklist.md) — How the team releases" in context_file
    assert "Run ./dev test" not in context_file  # a note's body is read on demand
    assert "- **lint** — Run the linters" in context_file
    # The launch conversation passed 500 turns: it is rotated in the background, the handoff's turn kept.
    folder = ideai(scenario) / "conversations" / launch_conversation
    eventually(lambda: (folder / "log.1.jsonl").is_file(), "the rotation started at launch")
    active = [json.loads(line)["id"] for line in (folder / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert handoff.up_to in active
