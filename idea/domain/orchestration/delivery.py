"""The text IdeA types into an agent's terminal for a ticket, composed here and nowhere else (spec 03 §8.1),
and its encoding into terminal input (§8.3).

The original lost the delegation header when delivery moved between layers, and targets answered in prose;
keeping one composition point, pinned by tests, makes that impossible.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.orchestration.tickets import Ticket, TicketKind

HEADER_MARK = "[IdeA ·"
BRACKETED_PASTE_START = "\x1b[200~"
BRACKETED_PASTE_END = "\x1b[201~"
CHUNK_MAX_CODE_POINTS = 512
ERASE_CHAR = "\x7f"  # backspace; never Ctrl-U, whose meaning differs between CLIs


@dataclass(frozen=True)
class FileReplyChannel:
    """A file-protocol target answers by writing a request file into its own folder."""

    requests_in_dir: str  # absolute `.ideai/requests/<agentId>/in`


def compose_delivery(ticket: Ticket, file_channel: FileReplyChannel | None = None) -> str:
    """The delivered text. The ticket, the conversation log and the work panel keep the raw task."""
    label = ticket.requester_label
    if ticket.kind is TicketKind.HUMAN:
        return ticket.task
    if ticket.kind is TicketKind.TASK:
        return f"{HEADER_MARK} task from {label} · ticket {ticket.id} · no reply expected] {ticket.task}"
    if ticket.kind is TicketKind.LATE_REPLY:
        return f"{HEADER_MARK} late reply from {label} · ticket {ticket.about_ticket}] {ticket.task}"
    header = f"{HEADER_MARK} task from {label} · ticket {ticket.id}] {ticket.task}"
    return f"{header}\n\n{_reply_instruction(ticket, file_channel)}"


def _reply_instruction(ticket: Ticket, file_channel: FileReplyChannel | None) -> str:
    consequence = f"A plain-text answer is not delivered to {ticket.requester_label} and leaves it waiting."
    if file_channel is None:
        return (
            "IdeA: when you are done you MUST call idea_reply(result=<your complete answer>, "
            f'ticket="{ticket.id}"). {consequence}'
        )
    return (
        "IdeA: when you are done you MUST write a request file into the folder "  # quoted: it may hold spaces
        f'"{file_channel.requests_in_dir}" (first as <uuid>.json.tmp, then renamed to <uuid>.json) containing '
        f'{{"type": "agent.reply", "ticket": "{ticket.id}", "result": "<your complete answer>"}}. {consequence}'
    )


def overlay_banner(ticket: Ticket) -> str:
    """What the cell's overlay says while a ticket's text is typed into it (§8.2): who is speaking. The spec's
    "An agent is speaking" would name no one, and be wrong for the person's own task."""
    if ticket.requester_agent is None:
        return "Typing your task — input paused"
    return f"{ticket.requester_label} is speaking — input paused"


def is_idea_delivery(prompt: str) -> bool:
    """A prompt that starts a turn of IdeA's (a delegation, a launch task, a late reply)."""
    return HEADER_MARK in prompt


@dataclass(frozen=True)
class EncodedDelivery:
    chunks: tuple[str, ...]  # written in order, with a short pause between them
    bracketed: bool
    flattened: bool  # multi-line text sent without bracketed paste: newlines became spaces

    @property
    def byte_count(self) -> int:
        return sum(len(chunk.encode("utf-8")) for chunk in self.chunks)


def encode_delivery(text: str, bracketed_paste: bool) -> EncodedDelivery:
    """Terminal input for `text`, without any submit sequence (that is written alone, after a delay).

    Line endings become `\\n`; control characters other than newline and tab are dropped so a task cannot
    end the paste early or type keys of its own. With bracketed paste the text is wrapped in the paste
    markers, written with the first and the last chunk as a terminal sends a paste (a marker is never
    split, and no pause separates it from the text); without it newline runs and tabs become single spaces,
    since a typed newline would submit and a typed tab would complete. Chunks hold at most
    CHUNK_MAX_CODE_POINTS code points: a long delegation written in one burst arrived truncated in Codex's
    TUI.
    """
    body = _printable(normalise_line_endings(text))
    flattened = False
    if not bracketed_paste:
        body = body.replace("\t", " ")  # a typed tab would ask the CLI to complete
        if "\n" in body:
            body = _flatten_newlines(body)
            flattened = True
    size = CHUNK_MAX_CODE_POINTS
    pieces = tuple(body[start : start + size] for start in range(0, len(body), size))
    if bracketed_paste:
        pieces = pieces or ("",)
        pieces = (BRACKETED_PASTE_START + pieces[0], *pieces[1:])
        pieces = (*pieces[:-1], pieces[-1] + BRACKETED_PASTE_END)
    return EncodedDelivery(chunks=pieces, bracketed=bracketed_paste, flattened=flattened)


def normalise_line_endings(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _printable(text: str) -> str:
    return "".join(ch for ch in text if ch in "\n\t" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0))


def _flatten_newlines(text: str) -> str:
    out: list[str] = []
    in_newline_run = False
    for ch in text:
        if ch == "\n":
            if not in_newline_run:
                out.append(" ")
            in_newline_run = True
        else:
            out.append(ch)
            in_newline_run = False
    return "".join(out)
