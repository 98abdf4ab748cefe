"""Memory harvest from replies (spec 04 §12): after a successful ask/reply, once the response turn is
recorded and the handoff saved, the `idea-memory` blocks of the reply are saved through `MemoryService.write`.
Strictly best-effort: it never raises, so it can never fail a reply, a delegation, a handoff or a ticket."""

from __future__ import annotations

from dataclasses import dataclass

from idea.application.knowledge.memory import MemoryService
from idea.application.ports import Diagnostics
from idea.domain.knowledge.conversation_log import TurnRole
from idea.domain.knowledge.memory_harvest import parse_memory_blocks


@dataclass(frozen=True)
class HarvestOutcome:
    found: int = 0
    saved: tuple[str, ...] = ()
    skipped: int = 0
    errors: tuple[str, ...] = ()


class HarvestMemory:
    def __init__(self, memory: MemoryService, diagnostics: Diagnostics) -> None:
        self._memory = memory
        self._diagnostics = diagnostics

    async def __call__(self, role: TurnRole, text: str) -> HarvestOutcome:
        """Harvest the current reply's text; prompts (and tool activity) are never parsed."""
        if role is not TurnRole.RESPONSE:
            return HarvestOutcome()
        try:
            outcome = await self._harvest(text)
        except Exception as exc:  # noqa: BLE001 - never let a harvest fail the reply it reads
            self._diagnostics.beacon(f"[memory-harvest] failed: {exc!r}")
            return HarvestOutcome(errors=(repr(exc),))
        if outcome.found:
            self._diagnostics.beacon(
                f"[memory-harvest] found={outcome.found} saved={','.join(outcome.saved) or '-'} "
                f"skipped={outcome.skipped}" + "".join(f" error={error!r}" for error in outcome.errors)
            )
        return outcome

    async def _harvest(self, text: str) -> HarvestOutcome:
        parsed = parse_memory_blocks(text)
        saved: list[str] = []
        errors = list(parsed.errors)
        for directive in parsed.directives:
            try:
                note = await self._memory.write(
                    directive.slug,
                    directive.body,
                    description=directive.description,
                    note_type=directive.type,
                    title=directive.title,
                )
            except Exception as exc:  # noqa: BLE001 - one block's failure never stops the others
                errors.append(f"{directive.slug}: {exc}")
                continue
            saved.append(note.slug)
        return HarvestOutcome(parsed.found, tuple(saved), parsed.found - len(saved), tuple(errors))
