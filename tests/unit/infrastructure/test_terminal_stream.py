"""The output scanners shared by the terminal adapters: whatever the chunks, they see what the whole stream says,
and the common chunk of coloured text is passed over without a search."""

from __future__ import annotations

from idea.infrastructure.terminal_stream import BracketedPasteTracker, ColorQueryResponder, may_matter_to_scanners

BLACK, WHITE = (0, 0, 0), (255, 255, 255)
# Plain text with the scanners' rare bytes in it (a question, brackets), colours, bracketed paste on inside a
# combined sequence, a palette query ended by ST, a background query ended by BEL, an OSC that asks nothing.
STREAM = (
    b"what? [x] \x1b[31mred\x1b[0m \x1b[?1049;2004h a[1] \x1b]0;title\x07 "
    b"\x1b]4;1;?\x1b\\ mid \x1b]11;?\x07 \x1b[32mok?\x1b[0m\r\n"
)
REPLIES = b"\x1b]4;1;rgb:cdcd/0000/0000\x1b\\\x1b]11;rgb:0000/0000/0000\x1b\\"


def feed_in_pieces(pieces: list[bytes]) -> tuple[bool, bytes]:
    tracker = BracketedPasteTracker()
    responder = ColorQueryResponder(WHITE, BLACK, [BLACK, (205, 0, 0)])
    replies = b""
    for piece in pieces:
        tracker.feed(piece)
        replies += responder.feed(piece)
    return tracker.enabled, replies


def test_the_whole_stream_is_read() -> None:
    assert feed_in_pieces([STREAM]) == (True, REPLIES)


def test_every_split_in_two_reads_the_same() -> None:
    for cut in range(1, len(STREAM)):
        assert feed_in_pieces([STREAM[:cut], STREAM[cut:]]) == (True, REPLIES), cut


def test_byte_by_byte_reads_the_same() -> None:
    assert feed_in_pieces([STREAM[i : i + 1] for i in range(len(STREAM))]) == (True, REPLIES)


def test_a_sequence_finished_in_a_chunk_without_the_rare_byte_is_still_read() -> None:
    # The rest of `ESC [ ? 2004` and of `ESC ] 11;` holds neither `?` nor `]`: what was begun is read on.
    assert feed_in_pieces([b"x\x1b[?20", b"04h plain"]) == (True, b"")
    enabled, replies = feed_in_pieces([b"\x1b]11", b";?", b"\x07"])
    assert replies == b"\x1b]11;rgb:0000/0000/0000\x1b\\" and not enabled
    assert feed_in_pieces([b"\x1b[?2004h", b"\x1b", b"[", b"?2004l"]) == (False, b"")


def test_bracketed_paste_turned_off_again() -> None:
    assert feed_in_pieces([b"\x1b[?2004h", b"text", b"\x1b[?2004l"]) == (False, b"")


def test_coloured_text_does_not_concern_the_scanners_but_its_rare_bytes_in_a_sequence_do() -> None:
    coloured = b"\x1b[31mred\x1b[0m plain text, [brackets] and a question? \x1b[1;32mok\x1b[0m\r\n" * 100
    assert not may_matter_to_scanners(coloured)
    assert may_matter_to_scanners(coloured + b"\x1b[?2004h")
    assert may_matter_to_scanners(coloured + b"\x1b]11;?\x07")
    assert may_matter_to_scanners(coloured + b"\x1b")
    assert may_matter_to_scanners(coloured + b"\x1b[")
