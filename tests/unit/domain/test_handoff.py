"""The handoff: heuristic fold, bound, file format, injection text (spec 04 §6; KN-3, KN-4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from idea.domain.knowledge.conversation_log import ConversationTurn, TurnRole
from idea.domain.knowledge.handoff import (
    HANDOFF_SUMMARY_MAX_CHARS,
    OBJECTIVE_MAX_CHARS,
    OBJECTIVE_PREFIXES,
    TURN_LINE_MAX_CHARS,
    Handoff,
    bound_handoff_summary,
    bound_summary,
    fold,
    parse_handoff,
    rebuilt_handoff,
    render_handoff,
    resume_text,
    turn_line,
)
from idea.domain.orchestration.tickets import AgentSource, HumanSource

CONVERSATION = "6ffc1f69-77a5-0da1-1965-ef26d1df72f5"
ORIGINAL_HANDOFF = """---
upTo: 88f405da-f9c9-44bb-96c9-7e1b0e5af557
objective: Bonjour TestConversation. Ceci est un test de communication inter-agents via IdeA. Peux-tu confirmer que tu me reçois et me dire combien font 17 + 25 ?
---
**Objectif :** Bonjour TestConversation. Ceci est un test de communication inter-agents via IdeA. Peux-tu confirmer que tu me reçois et me dire combien font 17 + 25 ?

- **Prompt:** Bonjour TestConversation. Ceci est un test de communication inter-agents via IdeA. Peux-tu confirmer que tu me reçois et me dire combien font 17 + 25 ?
- **Response:** (1) Confirmation : message bien reçu, le canal de communication inter-agent IdeA fonctionne correctement. (2) Date : 2026-06-13 (je n'ai pas d'heure horodatée plus précise dans mon contexte). (3) AI Profile/contexte perçu : Claude Code (modèle Opus 4.8, claude-opus-4-8), opérant sur le project root /home/anthony/Documents/Projects/IdeA via un run dir isolé. Canal validé. ✅
"""


def turn(index: int, text: str, role: TurnRole = TurnRole.PROMPT) -> ConversationTurn:
    source = HumanSource() if role is TurnRole.PROMPT else AgentSource("c932c770-cf36-4fb2-a966-71bb1644e4b4")
    return ConversationTurn(f"00000000-0000-4000-8000-{index:012d}", CONVERSATION, 1000 + index, source, role, text)


def test_kn3_the_fold_sets_the_objective_cuts_lines_at_240_and_moves_up_to() -> None:
    first = turn(1, "  Review   the\nstorage ports " + "p" * 300)
    reply = turn(2, "r" * 1000, TurnRole.RESPONSE)

    handoff = fold(None, [first, reply])

    assert handoff is not None
    assert handoff.up_to == reply.id
    assert len(handoff.objective) == OBJECTIVE_MAX_CHARS
    assert handoff.objective.startswith("Review the storage ports ppp")
    lines = handoff.summary.split("\n")
    assert lines[0] == f"**Objective:** {handoff.objective}"
    assert lines[1] == ""
    prompt_text = lines[2].removeprefix("- **Prompt:** ")
    response_text = lines[3].removeprefix("- **Response:** ")
    assert len(prompt_text) == TURN_LINE_MAX_CHARS and prompt_text.endswith("…")
    assert response_text == "r" * (TURN_LINE_MAX_CHARS - 1) + "…"


def test_a_short_turn_is_kept_whole_and_tool_activity_has_its_own_label() -> None:
    assert turn_line(turn(1, "pong", TurnRole.RESPONSE)) == "- **Response:** pong"
    assert turn_line(turn(1, "x" * TURN_LINE_MAX_CHARS)) == f"- **Prompt:** {'x' * TURN_LINE_MAX_CHARS}"
    assert turn_line(turn(1, "ran tests", TurnRole.TOOL_ACTIVITY)) == "- **Tool:** ran tests"


def test_the_objective_is_set_once_by_the_first_prompt_even_after_a_response() -> None:
    handoff = fold(None, [turn(1, "late reply first", TurnRole.RESPONSE)])
    assert handoff is not None and handoff.objective == "" and not handoff.summary.startswith("**")

    handoff = fold(handoff, [turn(2, "the real question"), turn(3, "another question")])

    assert handoff is not None and handoff.objective == "the real question"
    assert handoff.summary.split("\n")[:3] == [
        "**Objective:** the real question",
        "",
        "- **Response:** late reply first",
    ]


def test_folding_turn_by_turn_equals_folding_them_at_once() -> None:
    turns = [turn(i, f"text {i}", TurnRole.PROMPT if i % 2 else TurnRole.RESPONSE) for i in range(1, 8)]
    stepwise = None
    for one in turns:
        stepwise = fold(stepwise, [one])
    assert stepwise == fold(None, turns)


def test_kn4_the_bound_keeps_the_objective_and_the_newest_lines() -> None:
    handoff = fold(None, [turn(i, f"question {i} " + "w" * 300) for i in range(1, 60)])
    assert handoff is not None and len(handoff.summary) > HANDOFF_SUMMARY_MAX_CHARS

    bounded = bound_handoff_summary(handoff)

    assert len(bounded.summary) <= HANDOFF_SUMMARY_MAX_CHARS
    assert bounded.up_to == handoff.up_to and bounded.objective == handoff.objective
    assert bounded.summary.startswith(f"**Objective:** {handoff.objective}\n\n- **Prompt:** ")
    assert bounded.summary.endswith(handoff.summary.split("\n")[-1])
    assert "question 1 " not in bounded.summary.split("\n", 2)[2]  # the oldest lines went first
    assert bound_handoff_summary(bounded) == bounded


@given(st.lists(st.text(min_size=0, max_size=400), min_size=0, max_size=40), st.integers(10, 5000))
def test_kn4_the_bound_is_idempotent_never_longer_and_cuts_only_between_lines(lines: list[str], limit: int) -> None:
    summary = "**Objective:** goal\n\n" + "\n".join(line.replace("\n", " ") for line in lines)
    bounded = bound_summary(summary, limit)

    assert len(bounded) <= limit
    assert bound_summary(bounded, limit) == bounded
    if len("**Objective:** goal\n\n") <= limit:
        kept = bounded.split("\n")[2:] if "\n" in bounded else []
        original = summary.rstrip().split("\n")
        assert all(line in original for line in kept)


def bound_line_by_line(summary: str, max_chars: int) -> str:
    """The bound as spec 04 §6 states it, one line at a time from the newest: the reference of the fast one."""
    summary = summary.rstrip()
    if len(summary) <= max_chars:
        return summary
    header, rest = (summary.partition("\n")[0], summary.partition("\n")[2].lstrip("\n")) if summary.startswith(
        OBJECTIVE_PREFIXES) else ("", summary)
    head = f"{header}\n\n" if header else ""
    if len(head) > max_chars:
        return header[:max_chars].rstrip()
    kept: list[str] = []
    used = 0
    for line in reversed(rest.split("\n")):
        cost = len(line) + (1 if kept else 0)
        if used + cost > max_chars - len(head):
            break
        kept.append(line)
        used += cost
    return (head + "\n".join(reversed(kept))).rstrip()


@given(
    st.sampled_from(["**Objective:** goal", "**Objectif :** but", "", "no header"]),
    st.lists(st.text(alphabet="ab \n", max_size=60), max_size=30),
    st.integers(0, 400),
)
def test_the_bound_equals_the_line_by_line_rule(header: str, lines: list[str], limit: int) -> None:
    summary = (f"{header}\n\n" if header else "") + "\n".join(lines)
    assert bound_summary(summary, limit) == bound_line_by_line(summary, limit)


def test_the_file_round_trips_and_the_original_french_sample_is_read() -> None:
    handoff = fold(None, [turn(1, "question: with a colon"), turn(2, "answer", TurnRole.RESPONSE)])
    assert handoff is not None
    assert parse_handoff(render_handoff(handoff)).handoff == handoff

    original = parse_handoff(ORIGINAL_HANDOFF)
    assert original.problems == ()
    assert original.handoff is not None
    assert original.handoff.up_to == "88f405da-f9c9-44bb-96c9-7e1b0e5af557"
    assert original.handoff.objective.startswith("Bonjour TestConversation.")


def test_injection_bounds_a_legacy_unbounded_handoff_again() -> None:
    legacy = Handoff("x", "goal", "**Objectif :** goal\n\n" + "\n".join(f"- **Response:** {'z' * 900}" for _ in range(9)))

    text = resume_text(legacy)

    assert len(text) <= HANDOFF_SUMMARY_MAX_CHARS
    assert text.startswith("**Objectif :** goal\n\n- **Response:** ")
    assert resume_text(None) == ""


def test_a_file_without_up_to_is_not_a_handoff() -> None:
    parsed = parse_handoff("just some notes\n")
    assert parsed.handoff is None and parsed.problems


def test_a_lost_handoff_is_rebuilt_from_the_first_prompt_and_the_newest_turns() -> None:
    opening = [turn(1, "the very first question"), turn(2, "first answer", TurnRole.RESPONSE)]
    recent = [turn(i, f"turn {i}") for i in range(50, 60)]

    rebuilt = rebuilt_handoff(opening, recent)

    assert rebuilt is not None
    assert rebuilt.objective == "the very first question"
    assert rebuilt.up_to == recent[-1].id
    assert rebuilt.summary.endswith("- **Prompt:** turn 59")
    assert rebuilt_handoff(opening, []) is None
