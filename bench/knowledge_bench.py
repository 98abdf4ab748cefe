"""Knowledge hot and cold paths, each against a baseline measured in the same run.

1. Recording one turn as the orchestration core does: `ProjectKnowledge.append` (append + fsync, fold, bound,
   handoff save behind, a reply's memory harvest started) followed by the live-state update a recorded turn
   brings (`LiveBoard.write`), against a bare `write` + `fsync` of the same line to an O_APPEND file; both as
   before the live-state was written behind (file replaced on each update) and as
   now, interleaved. On the project's disk and, when present, on a tmpfs (`/dev/shm`).
2. A page of 50 turns from conversations of 10k, 100k and 1M turns, rotated (19 archives + an active segment
   of 500 turns): the newest page, the page before a served one (the viewer scrolling up), the first page,
   and the page before an anchor this reader never served (found by searching the segments).
3. The conversation viewer (Qt offscreen) opening the largest conversation until its newest page is laid out.

    python bench/knowledge_bench.py [--turns 2000] [--sizes 10000,100000,1000000] [--pages 200] [--opens 20]
                                    [--dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from idea.application.knowledge.runtime import ProjectKnowledge  # noqa: E402
from idea.application.orchestrator.board import SAVE_DELAY_MS as LIVE_STATE_SAVE_DELAY_MS  # noqa: E402
from idea.application.orchestrator.board import LiveBoard  # noqa: E402
from idea.domain.agent import AgentEntry, AgentManifest  # noqa: E402
from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole  # noqa: E402
from idea.domain.knowledge.conversation_pages import Direction, PageCursor  # noqa: E402
from idea.domain.orchestration.commands import WorkStatus  # noqa: E402
from idea.domain.orchestration.live_state import RowChange  # noqa: E402
from idea.domain.orchestration.tickets import AgentSource, HumanSource  # noqa: E402
from idea.infrastructure.clock import SystemClock, Uuid4Generator  # noqa: E402
from idea.infrastructure.knowledge_adapters import LocalKnowledgeAdapters  # noqa: E402
from idea.infrastructure.stores.conversation_archive import FolderReader, ReadCache  # noqa: E402
from idea.infrastructure.stores.conversation_log import JsonlConversationLog  # noqa: E402
from idea.infrastructure.stores.live_state import JsonLiveStateStore  # noqa: E402
from idea.infrastructure.timer import MonotonicTimer  # noqa: E402

CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"
AGENT = "c932c770-cf36-4fb2-a966-71bb1644e4b4"
TEXT = (
    "Review the storage ports of idea/infrastructure/stores/ and list those that write without fsync; "
    "then propose a benchmark for the record-turn path."
)


class Quiet:
    def beacon(self, message: str) -> None:
        pass

    def publish(self, event: object) -> None:
        pass


class BenchTeam:
    """One agent, no session, no queue: what the knowledge reads of a team, for recording turns."""

    def manifest(self) -> AgentManifest:
        return AgentManifest(agents=(AgentEntry(agent_id=AGENT, name="QA", md_path="agents/qa.md", profile_id="p"),))

    def persona(self, agent_id: str) -> str:
        return ""

    async def update_persona(self, agent_id: str, body: str) -> None:
        pass

    async def change_manifest(self, change: Callable[[AgentManifest], AgentManifest]) -> AgentManifest:
        return change(self.manifest())

    def live_session(self, agent_id: str) -> None:
        return None

    def queue_snapshots(self) -> tuple[()]:
        return ()


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def row(label: str, samples_s: list[float]) -> tuple[str, float, float, float]:
    ms = [s * 1000 for s in samples_s]
    return label, statistics.median(ms), percentile(ms, 0.99), statistics.fmean(ms)


def turn(index: int, conversation: str = CONVERSATION) -> ConversationTurn:
    role = TurnRole.PROMPT if index % 2 == 0 else TurnRole.RESPONSE
    source = HumanSource() if role is TurnRole.PROMPT else AgentSource(AGENT)
    return ConversationTurn(
        f"{index:08x}-0000-4000-8000-000000000000", conversation, 1_781_368_615_582 + index, source, role, f"{TEXT} #{index}"
    )


# ------------------------------------------------------------------------------------- 1. recording


def bench_record(base: Path, turns: int) -> list[tuple[str, float, float, float]]:
    """Interleaved: each iteration times a bare append+fsync, then one turn recorded as before the write-behind
    live-state (the board's file replaced on every update), then one turn recorded as now, so all three see
    the same disk (a shared machine's fsync time moves by an order of magnitude within seconds). Both append on
    a worker thread, as IdeA does."""
    root = Path(tempfile.mkdtemp(prefix="record-", dir=base))
    bare_path = root / ".ideai" / "conversations" / "bare.jsonl"
    bare_path.parent.mkdir(parents=True)

    def recorder(name: str, save_delay_ms: int) -> tuple[ProjectKnowledge, LiveBoard]:
        project = root / name
        team = BenchTeam()
        stores = LocalKnowledgeAdapters(root / "user-data").for_project(str(project))
        stores = replace(stores, conversations=JsonlConversationLog(str(project)))
        knowledge = ProjectKnowledge(
            stores, team=team, team_view=team, queues=team, clock=SystemClock(), timer=MonotonicTimer(),
            ids=Uuid4Generator(), events=Quiet(), diagnostics=Quiet(),
        )
        board = LiveBoard(
            JsonLiveStateStore(str(project)), SystemClock(), Quiet(), Quiet(), MonotonicTimer(), save_delay_ms
        )
        return knowledge, board

    async def measure() -> dict[str, list[float]]:
        before = recorder("before", save_delay_ms=0)
        after = recorder("after", save_delay_ms=LIVE_STATE_SAVE_DELAY_MS)
        samples: dict[str, list[float]] = {key: [] for key in ("bare", "before", "before+", "after", "after+")}
        for index in range(turns):
            line = turn(index).to_line().encode()
            started = time.perf_counter()
            fd = os.open(bare_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            os.write(fd, line)
            os.fsync(fd)
            os.close(fd)
            samples["bare"].append(time.perf_counter() - started)
            for key, (knowledge, board) in (("before", before), ("after", after)):
                started = time.perf_counter()
                await knowledge.append(turn(index))
                middle = time.perf_counter()
                board.write(AGENT, RowChange(status=WorkStatus.WORKING, intent=f"task #{index}"))
                ended = time.perf_counter()
                samples[key].append(middle - started)
                samples[key + "+"].append(ended - started)
        for knowledge, board in (before, after):
            board.close()
            await knowledge.close()
        return samples

    samples = asyncio.run(measure())
    return [
        row("bare open + write + fsync of the same line (baseline)", samples["bare"]),
        row("before: ProjectKnowledge.append (append, fold, bound, handoff behind)", samples["before"]),
        row("before: … + live-state update (file replaced at once): one recorded turn", samples["before+"]),
        row("after: ProjectKnowledge.append (append, fold, bound, handoff behind)", samples["after"]),
        row("after: … + live-state update (file written behind): one recorded turn", samples["after+"]),
    ]


# ------------------------------------------------------------------------------------- 2. pages


def build_conversation(base: Path, total: int) -> Path:
    """A conversation of `total` turns as a rotation leaves it: 19 archives, then 500 active turns."""
    root = base / f"conversation-{total}"
    folder = root / ".ideai" / "conversations" / CONVERSATION
    if (folder / "log.jsonl").exists():
        return root
    folder.mkdir(parents=True)
    active = min(500, total)
    archived = total - active
    archives = 19 if archived else 0
    start = 0
    for number in range(1, archives + 1):
        end = archived * number // archives
        (folder / f"log.{number}.jsonl").write_bytes(b"".join(turn(i).to_line().encode() for i in range(start, end)))
        start = end
    (folder / "log.jsonl").write_bytes(b"".join(turn(i).to_line().encode() for i in range(start, total)))
    return root


def bench_pages(base: Path, sizes: list[int], pages: int) -> list[tuple[str, float, float, float]]:
    rows = []
    for total in sizes:
        root = build_conversation(base, total)
        folder = root / ".ideai" / "conversations" / CONVERSATION
        cache = ReadCache()

        def timed(read: Callable[[FolderReader], object], count: int) -> list[float]:
            samples = []
            for _ in range(count):
                started = time.perf_counter()
                with FolderReader(folder, cache) as reader:
                    read(reader)
                samples.append(time.perf_counter() - started)
            return samples

        newest = timed(lambda r: r.page(PageCursor(), 50), pages)
        with FolderReader(folder, cache) as reader:
            served = reader.page(PageCursor(), 50)
        oldest_loaded = served.turns[0].id
        older = timed(lambda r: r.page(PageCursor(oldest_loaded, Direction.BACKWARD), 50), pages)
        first = timed(lambda r: r.page(PageCursor(direction=Direction.FORWARD), 50), pages)
        middle = turn(total // 2).id
        cold = []
        for _ in range(max(3, pages // 20)):
            fresh = ReadCache()
            started = time.perf_counter()
            with FolderReader(folder, fresh) as reader:
                reader.page(PageCursor(middle, Direction.BACKWARD), 50)
            cold.append(time.perf_counter() - started)
        rows += [
            row(f"{total:>9,} turns: newest page", newest),
            row(f"{total:>9,} turns: page before the oldest served turn", older),
            row(f"{total:>9,} turns: first page", first),
            row(f"{total:>9,} turns: page before an unserved anchor (search)", cold),
        ]
    return rows


# ------------------------------------------------------------------------------------- 3. the viewer


def bench_viewer(root: Path, opens: int) -> list[tuple[str, float, float, float]]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")
    from PySide6.QtWidgets import QApplication

    from idea.application.conversation.pages import ConversationPages
    from idea.infrastructure.core_loop import CoreLoop
    from idea.ui.core_client import CoreClient
    from idea.ui.gui_thread import GuiThread
    from idea.ui.knowledge.conversation_viewer import ConversationViewer

    app = QApplication.instance() or QApplication([])
    core = CoreLoop("bench-core").start()
    client = CoreClient(core, GuiThread(), lambda error: print("error:", error))
    log = JsonlConversationLog(str(root))
    pages = ConversationPages(log)  # no rotation: the files stay as built
    samples: list[float] = []
    cpu: list[float] = []  # the process's CPU time, both threads: what the open costs without waiting for a CPU
    older: list[float] = []
    for _ in range(opens):
        viewer = ConversationViewer(client, pages, agent_name=lambda a: "Architect", raw_log_path=lambda c: "")
        viewer.resize(1000, 760)
        viewer.show()
        shown: list[float] = []
        viewer.pageShown.connect(lambda: shown.append(time.perf_counter()))
        started, cpu_started = time.perf_counter(), time.process_time()
        viewer.show_conversation(CONVERSATION, "Main ↔ Architect")
        while not shown:
            app.processEvents()
        viewer.view.viewport().repaint()  # the newest page painted
        samples.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
        started = time.perf_counter()
        viewer.load_older()
        while len(shown) < 2:
            app.processEvents()
        older.append(time.perf_counter() - started)
        viewer.close()
        viewer.deleteLater()
        app.processEvents()
    core.stop()
    return [
        row("viewer: open, newest page laid out and painted", samples),
        row("viewer: the same, CPU time of the process", cpu),
        row("viewer: scroll up, older page in place", older),
    ]


def table(rows: list[tuple[str, float, float, float]]) -> str:
    lines = ["| Measure | p50 (ms) | p99 (ms) | mean (ms) |", "|---|---:|---:|---:|"]
    lines += [f"| {label} | {p50:.3f} | {p99:.3f} | {mean:.3f} |" for label, p50, p99, mean in rows]
    return "\n".join(lines)


def ratios(rows: list[tuple[str, float, float, float]]) -> str:
    """Each variant against the baseline of the same run, at p50 and p99."""
    bare = rows[0]
    lines = ["", "| Ratio to the baseline | p50 | p99 |", "|---|---:|---:|"]
    lines += [f"| {label} | {p50 / bare[1]:.2f} | {p99 / bare[2]:.2f} |" for label, p50, p99, _ in rows[1:]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--opens", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "idea-knowledge-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs")

    print(f"\n## Recording one turn ({args.turns} turns, project disk: {args.dir})\n")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    disk = bench_record(args.dir, args.turns)
    print(table(disk))
    print(ratios(disk))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if Path("/dev/shm").is_dir():
        print(f"\n## Recording one turn ({args.turns} turns, tmpfs /dev/shm)\n")
        shm = bench_record(Path("/dev/shm"), args.turns)
        print(table(shm))
        print(ratios(shm))

    print(f"\n## A page of 50 turns ({args.pages} reads each)\n")
    page_rows = bench_pages(args.dir, sizes, args.pages)
    print(table(page_rows))
    newest = {label.split(":")[0].strip(): p50 for label, p50, _, _ in page_rows if label.endswith("newest page")}
    print("\nnewest page p50, largest / smallest:", json.dumps({k: round(v, 3) for k, v in newest.items()}))

    print(f"\n## The conversation viewer ({args.opens} opens, {sizes[-1]:,} turns)\n")
    print(table(bench_viewer(build_conversation(args.dir, sizes[-1]), args.opens)))


if __name__ == "__main__":
    main()
