"""Spec 06 §3, §5-§8 on disk: permissions.json is read and written in the original's format and never
rewritten on its own; a launch writes each CLI's projection and the sandbox plan, keeping every key IdeA
does not own (acceptance PS-1, PS-4, PS-5 at file level)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from idea.application.permissions.service import PermissionService
from idea.domain.permissions.model import Effect, PermissionSet
from idea.domain.permissions.view import preset
from idea.infrastructure.host import LocalHost
from idea.infrastructure.stores.permissions import JsonPermissionStore
from tests.fakes_permissions import FakeSandbox
from tests.integration.test_run_dir import AGENT, custom, prepare, shipped

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "permissions"


def project(tmp_path: Path, content: bytes | None = None) -> Path:
    root = tmp_path / "proj"
    (root / ".ideai").mkdir(parents=True)
    if content is not None:
        (root / ".ideai" / "permissions.json").write_bytes(content)
    return root


def test_the_original_file_round_trips_through_the_store(tmp_path: Path) -> None:
    original = (FIXTURES / "original-team.json").read_bytes()
    root = project(tmp_path, original)
    store = JsonPermissionStore()
    reading = store.read(str(root))
    assert reading.problems == ()
    store.save(str(root), reading.document)
    assert (root / ".ideai" / "permissions.json").read_bytes() == original
    assert [p.name for p in (root / ".ideai").iterdir()] == ["permissions.json"]


def test_a_broken_file_is_never_moved_nor_rewritten_and_blocks_every_agent(tmp_path: Path) -> None:
    broken = b'{"version": 1, "projectDefaults": {"rules": [,]}}'
    root = project(tmp_path, broken)
    store = JsonPermissionStore()
    for _ in range(2):
        reading = store.read(str(root))
        assert reading.unreadable is not None and "invalid JSON at line 1" in reading.unreadable
        assert reading.launch_blocker(AGENT) is not None
    assert (root / ".ideai" / "permissions.json").read_bytes() == broken
    assert [p.name for p in (root / ".ideai").iterdir()] == ["permissions.json"]


def test_saving_over_a_file_with_problems_keeps_the_person_s_file(tmp_path: Path) -> None:
    hand_edited = b'{"version": 1, "projectDefaults": {"rules": [{"capability": "net", "effect": "deny"}], "fallback": "allow"}}\n'
    root = project(tmp_path, hand_edited)
    store = JsonPermissionStore()
    kept = store.save(str(root), store.read(str(root)).document.with_project_defaults(PermissionSet((), Effect.ASK)))
    assert kept is not None and Path(kept).read_bytes() == hand_edited
    assert json.loads((root / ".ideai" / "permissions.json").read_text())["projectDefaults"] == {
        "rules": [], "fallback": "ask"}
    assert store.save(str(root), store.read(str(root)).document) is None  # a clean file is not copied


def _service(root: Path) -> PermissionService:
    return PermissionService(JsonPermissionStore(), FakeSandbox(), LocalHost())


def test_claude_projection_is_merged_with_hooks_and_a_swap_away_removes_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    service = _service(root)
    JsonPermissionStore().save(str(root), JsonPermissionStore().read(str(root)).document.with_project_defaults(
        preset("reviewer").permissions))
    claude = shipped("Claude Code")
    launch = service.for_launch(str(root), AGENT, "Architect", claude)
    prepare(root, claude, **launch.run_dir_fields())
    run_dir = root / ".ideai" / "run" / AGENT
    settings = json.loads((run_dir / ".claude" / "settings.local.json").read_text())
    assert settings["permissions"]["additionalDirectories"] == [str(root)]
    assert settings["permissions"]["deny"][-1] == "Bash(reboot*)" and "Edit(**)" in settings["permissions"]["deny"]
    assert settings["sandbox"] == {"enabled": False} and settings["skipDangerousModePermissionPrompt"] is True
    assert "Stop" in settings["hooks"] and settings["enabledMcpjsonServers"] == ["idea"]
    plan = json.loads((run_dir / "sandbox-plan.json").read_text())
    assert plan["version"] == 1 and plan["handled"] == {"ro": False, "rw": True}

    # The agent swaps to Codex: Claude's replace-owned file goes, Codex's co-owned config is merged.
    codex_home = tmp_path / "user-codex"
    codex_home.mkdir()
    config = run_dir / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "o3"\n[tui]\ntheme = "dark"\n', encoding="utf-8")
    codex = shipped("Codex")
    prepared = prepare(root, codex, codex_home, **service.for_launch(str(root), AGENT, "Architect", codex).run_dir_fields())
    assert not (run_dir / ".claude" / "settings.local.json").exists()
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert (parsed["sandbox_mode"], parsed["approval_policy"]) == ("workspace-write", "never")
    assert parsed["model"] == "o3" and parsed["tui"] == {"theme": "dark"}  # keys IdeA does not own survive
    assert prepared.extra_args == ("--sandbox", "workspace-write", "--ask-for-approval", "never")

    # The policy is lifted: the managed keys, the arguments and the plan go; the user's keys stay.
    JsonPermissionStore().save(str(root), JsonPermissionStore().read(str(root)).document.with_project_defaults(None))
    prepared = prepare(root, codex, codex_home, **service.for_launch(str(root), AGENT, "Architect", codex).run_dir_fields())
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert "sandbox_mode" not in parsed and "approval_policy" not in parsed and parsed["model"] == "o3"
    assert prepared.extra_args == () and not (run_dir / "sandbox-plan.json").exists()


def test_a_custom_cli_gets_no_projection_but_still_a_sandbox_plan(tmp_path: Path) -> None:
    root = project(tmp_path)
    JsonPermissionStore().save(str(root), JsonPermissionStore().read(str(root)).document.with_agent_permissions(
        AGENT, preset("reviewer").permissions))
    profile = custom()
    launch = _service(root).for_launch(str(root), AGENT, "Helper", profile)
    assert launch.policy.projection.is_empty and launch.plan_file is not None
    prepare(root, profile, **launch.run_dir_fields())
    run_dir = root / ".ideai" / "run" / AGENT
    assert not (run_dir / ".claude").exists()
    assert (run_dir / "sandbox-plan.json").stat().st_mode & 0o777 == 0o600
