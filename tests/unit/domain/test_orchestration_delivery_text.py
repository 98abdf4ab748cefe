"""The delivered text (spec 03 §8.1) and its encoding into terminal input (§8.3)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from idea.domain.orchestration.delivery import (
    BRACKETED_PASTE_END,
    BRACKETED_PASTE_START,
    CHUNK_MAX_CODE_POINTS,
    FileReplyChannel,
    compose_delivery,
    encode_delivery,
    is_idea_delivery,
)
from idea.domain.orchestration.tickets import AgentSource, HumanSource, Ticket, TicketKind

TICKET_ID = "3f2a9c1e-5d7b-4c1a-9e0f-2b6d8a4c7e11"


def ticket(kind: TicketKind, task: str = "Review the storage ports", **changes: object) -> Ticket:
    values: dict[str, object] = {
        "id": TICKET_ID,
        "target": "dce19c75-9669-4e45-b8de-9950025157da",
        "source": AgentSource("c932c770-cf36-4fb2-a966-71bb1644e4b4"),
        "requester_label": "Main",
        "conversation": "6ffc1f69-77a5-0da1-1965-ef26d1df72f5",
        "task": task,
        "expects_reply": kind is TicketKind.ASK,
        "created_at_ms": 1,
        "kind": kind,
    }
    values.update(changes)
    return Ticket(**values)  # type: ignore[arg-type]


def test_an_ask_carries_header_task_and_the_imperative_reply_instruction() -> None:
    text = compose_delivery(ticket(TicketKind.ASK, "Review the storage ports\nand report."))

    assert text == (
        f"[IdeA · task from Main · ticket {TICKET_ID}] Review the storage ports\nand report.\n\n"
        f'IdeA: when you are done you MUST call idea_reply(result=<your complete answer>, ticket="{TICKET_ID}"). '
        "A plain-text answer is not delivered to Main and leaves it waiting."
    )


def test_a_file_protocol_target_is_told_to_write_an_agent_reply_request_in_its_folder() -> None:
    folder = "/home/jean/Mes projets/démo/.ideai/requests/dce19c75-9669-4e45-b8de-9950025157da/in"
    text = compose_delivery(ticket(TicketKind.ASK), FileReplyChannel(folder))

    assert text.startswith(f"[IdeA · task from Main · ticket {TICKET_ID}] Review the storage ports\n\n")
    assert f'write a request file into the folder "{folder}" (first as' in text  # whole, though it has spaces
    assert '"type": "agent.reply"' in text and f'"ticket": "{TICKET_ID}"' in text
    assert "idea_reply" not in text
    assert text.endswith("A plain-text answer is not delivered to Main and leaves it waiting.")


def test_a_launch_task_says_no_reply_is_expected_and_has_no_instruction() -> None:
    text = compose_delivery(ticket(TicketKind.TASK, "Warm up the caches"))

    assert text == f"[IdeA · task from Main · ticket {TICKET_ID} · no reply expected] Warm up the caches"


def test_a_late_reply_names_who_answered_and_the_original_ticket() -> None:
    late = ticket(
        TicketKind.LATE_REPLY, "build green", id="new-ticket", requester_label="Architect", about_ticket=TICKET_ID
    )

    assert compose_delivery(late) == f"[IdeA · late reply from Architect · ticket {TICKET_ID}] build green"


def test_a_human_ticket_is_delivered_verbatim() -> None:
    human = ticket(TicketKind.HUMAN, "please look at line 12\nthanks", source=HumanSource(), requester_label="you")

    assert compose_delivery(human) == "please look at line 12\nthanks"


def test_idea_prompts_are_recognised_by_their_header() -> None:
    assert is_idea_delivery(compose_delivery(ticket(TicketKind.ASK)))
    assert not is_idea_delivery("fix the bug in main.py")


def test_bracketed_paste_wraps_the_text_with_markers_written_with_it() -> None:
    encoded = encode_delivery("line one\r\nline two\rline three", bracketed_paste=True)

    assert encoded.chunks == (BRACKETED_PASTE_START + "line one\nline two\nline three" + BRACKETED_PASTE_END,)
    assert encoded.bracketed and not encoded.flattened


def test_without_bracketed_paste_newline_runs_and_tabs_become_single_spaces() -> None:
    encoded = encode_delivery("first\n\n\nsecond\tthird\r\nfourth", bracketed_paste=False)

    assert encoded.chunks == ("first second third fourth",)
    assert encoded.flattened


def test_single_line_text_is_not_reported_as_flattened() -> None:
    assert not encode_delivery("just one line", bracketed_paste=False).flattened


def test_control_characters_cannot_end_the_paste_or_type_keys() -> None:
    encoded = encode_delivery(f"evil{BRACKETED_PASTE_END}\r rm -rf /\x03\x1b[A", bracketed_paste=True)

    [chunk] = encoded.chunks
    assert chunk.startswith(BRACKETED_PASTE_START) and chunk.endswith(BRACKETED_PASTE_END)
    body = chunk[len(BRACKETED_PASTE_START) : -len(BRACKETED_PASTE_END)]
    assert "\x1b" not in body and "\x03" not in body
    assert body == "evil[201~\n rm -rf /[A"


def test_long_text_is_cut_in_chunks_of_at_most_512_code_points() -> None:
    text = "é🙂" * 700  # 1400 code points, multi-byte
    encoded = encode_delivery(text, bracketed_paste=True)

    first, middle, last = encoded.chunks
    assert first.startswith(BRACKETED_PASTE_START) and last.endswith(BRACKETED_PASTE_END)
    body_chunks = [first[len(BRACKETED_PASTE_START) :], middle, last[: -len(BRACKETED_PASTE_END)]]
    assert [len(chunk) for chunk in body_chunks] == [512, 512, 376]
    assert "".join(body_chunks) == text
    assert encoded.byte_count == len((BRACKETED_PASTE_START + text + BRACKETED_PASTE_END).encode())


@given(st.text(), st.booleans())
def test_encoding_never_exceeds_the_chunk_size_and_keeps_the_printable_text(text: str, bracketed: bool) -> None:
    encoded = encode_delivery(text, bracketed)

    joined = "".join(encoded.chunks)
    if bracketed:
        assert joined.startswith(BRACKETED_PASTE_START) and joined.endswith(BRACKETED_PASTE_END)
        joined = joined[len(BRACKETED_PASTE_START) : -len(BRACKETED_PASTE_END)]
    markers = len(BRACKETED_PASTE_START) + len(BRACKETED_PASTE_END) if bracketed else 0
    assert all(len(chunk) <= CHUNK_MAX_CODE_POINTS + markers for chunk in encoded.chunks)
    body = joined
    assert "\r" not in body and "\x1b" not in body
    if not bracketed:
        assert "\n" not in body
