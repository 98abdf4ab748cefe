"""The process the crash-consistency suite kills with SIGKILL: the real application (the composition root,
its stores, its project runtime and orchestration core, headless) writing every kind of file IdeA keeps as
fast as it can, chosen at random from a seed:

- the project: `layouts.json` (cell gestures), `agents.json` and the personas (team gestures),
  `live-state.json` (idea_workstate_set through the dispatch), `running.json`, a conversation log and its
  handoff (through the project's knowledge, as the core records a turn);
- the user data: `settings.json`, `workspace.json`, `projects.json`, the diagnostics log.

Usage: python -m tests.crash.crash_worker DATA_DIR PROJECT_DIR SEED. Prints "ready" once the project is
open, then writes until it is killed. `... race DATA_DIR SEED SAVES`: the user-data saves of one of two
windows (IdeA processes) racing.
"""

from __future__ import annotations

import asyncio
import random
import sys
import uuid
from pathlib import Path

from idea.bootstrap import bootstrap
from idea.domain import layout as lay
from idea.domain.errors import AppError
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.orchestration.commands import AgentCaller, SetWorkState, Source, WorkStatus
from idea.domain.orchestration.tickets import HumanSource
from idea.domain.profile import reference_profile_id
from idea.domain.providers import RunningAgent, RunningAgents
from idea.domain.workspace import ColorScheme, NewCellContent, WindowState, Workspace
from idea.infrastructure.stores.running import JsonRunningAgentsStore
from idea.infrastructure.stores.user_data import JsonUserDataStore

MAX_AGENTS = 5
MAX_CELLS = 9
CONVERSATION = "5b0e2f7e-1b7a-4c55-9a55-3f7f0d1e2a10"


async def write_forever(app, runtime, rng: random.Random) -> None:  # noqa: ANN001
    """Random writes, each through the code path the application uses for it."""
    conversations = runtime.knowledge  # records each turn: the log, its handoff, the memory it names
    running = JsonRunningAgentsStore()
    user_data = JsonUserDataStore(app.data_dir)
    claude = reference_profile_id("claude")
    step = 0
    while True:
        step += 1
        agents = runtime.agents.manifest().agents
        leaves = lay.leaves(runtime.active.root)
        choice = rng.randrange(9)
        try:
            if choice == 0 and len(leaves) < MAX_CELLS:
                await runtime.split(rng.choice(leaves).id, rng.choice(list(lay.Direction)))
            elif choice == 0 and len(leaves) > 1:
                await runtime.close_cell(rng.choice(leaves[1:]).id, stop_session=False)
            elif choice == 1:
                await runtime.mutate(lay.Equalize(None))
            elif choice == 2 and len(agents) < MAX_AGENTS:
                await runtime.agents.create(f"Agent {step}", claude, "# Role\n" + "persona text " * rng.randrange(2000))
            elif choice == 2 and agents:
                await runtime.agents.delete(rng.choice(agents).agent_id)
            elif choice == 3 and agents:
                agent = rng.choice(agents)
                await runtime.agents.update_persona(agent.agent_id, f"# {agent.name}\n" + "x" * rng.randrange(30_000))
            elif choice == 4 and agents:
                await runtime.agents.set_orchestrator(rng.choice([None, *[a.agent_id for a in agents]]))
            elif choice == 5 and agents:
                status = rng.choice([WorkStatus.WORKING, WorkStatus.WAITING, WorkStatus.DONE, WorkStatus.IDLE])
                await runtime.orchestrator.dispatch(
                    AgentCaller(rng.choice(agents).agent_id), SetWorkState(status, intent=f"step {step}"), Source.MCP
                )
            elif choice == 6:
                text = f"turn {step} " + "words " * rng.randrange(400)
                await conversations.append(
                    ConversationTurn(str(uuid.uuid4()), CONVERSATION, step, HumanSource(), TurnRole.PROMPT, text)
                )
            elif choice == 7:
                rows = tuple(RunningAgent(agent_id=a.agent_id, since_ms=step) for a in agents if rng.random() < 0.5)
                running.save(runtime.root, RunningAgents(updated_at_ms=step, agents=rows))
            else:
                app.preferences.update_settings(color_scheme=rng.choice(list(ColorScheme)))
                windows = tuple(WindowState(id=f"w{n}", tabs=(runtime.id,)) for n in range(rng.randrange(1, 4)))
                app.preferences.save_workspace(Workspace(windows=windows))
                user_data.save_projects(user_data.load_projects())
                app.diagnostics.beacon(f"[crash-worker] step {step}")
        except AppError:
            pass  # a refusal (a name taken, an agent running): the next step writes something else
        if step % 20 == 0:
            await asyncio.sleep(0)


def race(data_dir: str, seed: str, saves: str) -> None:
    """One of two IdeA processes saving the shared user-data files at the same time (a window each)."""
    app = bootstrap(data_dir=Path(data_dir))
    rng = random.Random(seed)
    for save in range(int(saves)):
        windows = tuple(WindowState(id=f"{seed}-{save}-{n}") for n in range(rng.randrange(1, 6)))
        app.preferences.save_workspace(Workspace(windows=windows))
        app.preferences.update_settings(color_scheme=rng.choice(list(ColorScheme)))
        app.diagnostics.beacon(f"[race] {seed} save {save}")
    app.shutdown()


def main(data_dir: str, project_dir: str, seed: str) -> None:
    app = bootstrap(data_dir=Path(data_dir))
    app.preferences.update_settings(first_run_completed=True, new_cell_content=NewCellContent.EMPTY)
    runtime = app.core.submit(app.projects.open(project_dir)).result(60)
    print("ready", flush=True)
    app.core.submit(write_forever(app, runtime, random.Random(seed))).result()


if __name__ == "__main__":
    if sys.argv[1] == "race":
        race(*sys.argv[2:5])
    else:
        main(*sys.argv[1:4])
