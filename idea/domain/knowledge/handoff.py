"""The handoff of a conversation (spec 04 §6): a bounded, distilled summary that lets an agent resume a
conversation after a restart, even under another CLI. It is the only text of a conversation that ever
reaches an agent (the surface rule, §1); the transcript never does.

`handoff.md` = front matter (`upTo`, `objective`) + a Markdown body: the objective line, a blank line, one
bullet per turn. The heuristic fold is synchronous, pure and deterministic; the bound is idempotent and
applied on write and again on injection.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnId, TurnRole
from idea.domain.knowledge.front_matter import Problem, render_block, split_front_matter

HANDOFF_SUMMARY_MAX_CHARS = 4096
TURN_LINE_MAX_CHARS = 240
OBJECTIVE_MAX_CHARS = 200
ELLIPSIS = "…"
OBJECTIVE_PREFIX = "**Objective:**"
OBJECTIVE_PREFIXES = (OBJECTIVE_PREFIX, "**Objectif :**")  # the original wrote the French header
RESUME_HEADING = "# Conversation resume"
_BULLET_LABELS = {TurnRole.PROMPT: "Prompt", TurnRole.RESPONSE: "Response", TurnRole.TOOL_ACTIVITY: "Tool"}


@dataclass(frozen=True)
class Handoff:
    up_to: TurnId  # the last folded turn: the fold's cursor in the log
    objective: str  # the first prompt, flattened, at most 200 characters; set once
    summary: str  # the Markdown body, without a trailing newline


def flatten(text: str) -> str:
    return " ".join(text.split())


def turn_line(turn: ConversationTurn) -> str:
    """`- **Prompt:** <text>`: the text flattened and cut to 240 characters, the last one then being `…`."""
    text = flatten(turn.text)
    if len(text) > TURN_LINE_MAX_CHARS:
        text = text[: TURN_LINE_MAX_CHARS - 1] + ELLIPSIS
    return f"- **{_BULLET_LABELS[turn.role]}:** {text}"


def fold(previous: Handoff | None, turns: Iterable[ConversationTurn]) -> Handoff | None:
    """The handoff after `turns` (in log order), incrementally from `previous`; None only when there is
    neither a previous handoff nor a turn."""
    handoff = previous
    for turn in turns:
        handoff = _fold_one(handoff, turn)
    return handoff


def _fold_one(previous: Handoff | None, turn: ConversationTurn) -> Handoff:
    objective = previous.objective if previous is not None else ""
    header, bullets = _split_summary(previous.summary if previous is not None else "")
    if not objective and turn.role is TurnRole.PROMPT:
        objective = flatten(turn.text)[:OBJECTIVE_MAX_CHARS]
    if objective and not header:
        header = f"{OBJECTIVE_PREFIX} {objective}"
    bullets = f"{bullets}\n{turn_line(turn)}" if bullets else turn_line(turn)
    summary = f"{header}\n\n{bullets}" if header else bullets
    return Handoff(up_to=turn.id, objective=objective, summary=summary)


def _split_summary(summary: str) -> tuple[str, str]:
    """(objective line or "", the lines after it) of a summary."""
    if summary.startswith(OBJECTIVE_PREFIXES):
        header, _, rest = summary.partition("\n")
        return header, rest.lstrip("\n")
    return "", summary


def bound_summary(summary: str, max_chars: int = HANDOFF_SUMMARY_MAX_CHARS) -> str:
    """At most `max_chars` characters: the objective line and its blank line, then the most recent lines
    that fit; the oldest lines are dropped, lines are never cut (unless the objective line alone is
    longer than the bound). Idempotent."""
    summary = summary.rstrip()
    if len(summary) <= max_chars:
        return summary
    header, rest = _split_summary(summary)
    head = f"{header}\n\n" if header else ""
    if len(head) > max_chars:
        return header[:max_chars].rstrip()
    # The newest whole lines that fit: the suffix of `rest` starting at the first line start at or after
    # `len(rest) - budget` (found without splitting the lines: the fold bounds on every turn).
    earliest = len(rest) - (max_chars - len(head))
    start = 0 if earliest <= 0 else rest.find("\n", earliest - 1) + 1
    kept = rest[start:] if start > 0 or earliest <= 0 else ""
    return (head + kept).rstrip()


def bound_handoff_summary(handoff: Handoff, max_chars: int = HANDOFF_SUMMARY_MAX_CHARS) -> Handoff:
    """The handoff with its summary bounded; `upTo` and `objective` never change; never rejects."""
    bounded = bound_summary(handoff.summary, max_chars)
    return handoff if bounded == handoff.summary else replace(handoff, summary=bounded)


def render_handoff(handoff: Handoff) -> str:
    """The `handoff.md` text."""
    values = {"upTo": handoff.up_to, "objective": handoff.objective or None}
    return render_block(values) + handoff.summary + "\n"


@dataclass(frozen=True)
class ParsedHandoff:
    handoff: Handoff | None  # None: the file is not a handoff (no `upTo`)
    problems: tuple[Problem, ...]


def parse_handoff(text: str) -> ParsedHandoff:
    """A `handoff.md` read as far as it is valid (the original's files, hand edits)."""
    document = split_front_matter(text)
    problems = list(document.problems)
    values = document.blocks[0].values if document.blocks else {}
    up_to = values.get("upTo")
    if not isinstance(up_to, str) or not up_to.strip():
        problems.append(Problem(1, "no `upTo` in the front matter"))
        return ParsedHandoff(None, tuple(problems))
    summary = document.body.strip("\n").rstrip()
    objective = values.get("objective")
    if not isinstance(objective, str):
        header, _ = _split_summary(summary)
        objective = flatten(header.split(":**", 1)[1]) if header else ""
    return ParsedHandoff(
        Handoff(up_to=up_to.strip(), objective=objective.replace("\n", " ")[:OBJECTIVE_MAX_CHARS], summary=summary),
        tuple(problems),
    )


def resume_text(handoff: Handoff | None) -> str:
    """What an agent's context file receives under `# Conversation resume`: the bounded summary only."""
    if handoff is None:
        return ""
    return bound_summary(handoff.summary, HANDOFF_SUMMARY_MAX_CHARS).strip()


def rebuilt_handoff(
    opening: Iterable[ConversationTurn], recent: Iterable[ConversationTurn]
) -> Handoff | None:
    """A handoff made again from the log when the stored one is lost or unreadable: the objective from the
    conversation's first prompt (in `opening`, the oldest turns), the bullets from `recent` (the newest
    turns, enough to fill the bound), bounded."""
    first_prompt = next((turn for turn in opening if turn.role is TurnRole.PROMPT), None)
    recent = list(recent)
    if not recent:
        return None
    seed = None
    if first_prompt is not None:
        objective = flatten(first_prompt.text)[:OBJECTIVE_MAX_CHARS]
        seed = Handoff(up_to=first_prompt.id, objective=objective, summary=f"{OBJECTIVE_PREFIX} {objective}")
    handoff = fold(seed, recent)
    assert handoff is not None
    return bound_handoff_summary(handoff)
