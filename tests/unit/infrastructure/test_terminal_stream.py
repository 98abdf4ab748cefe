"""The output scanners shared by the terminal adapters: whatever the chunks, they see what the whole stream says,
and the common chunk of coloured text is passed over without a search."""

from __future__ import annotations

import random

from idea.infrastructure.terminal.stream import BracketedPasteTracker, ColorQueryResponder, OutputScanners

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


def test_coloured_text_leaves_the_scanners_idle_and_what_it_ends_with_or_holds_is_read() -> None:
    coloured = "\x1b[31mred\x1b[0m plain text, [brackets] and a question? \x1b[1;32mok\x1b[0m\r\n" * 100
    plain = coloured.replace("?", ".")
    scanners = OutputScanners(ColorQueryResponder(WHITE, BLACK))
    assert scanners.read([coloured, plain]) == b""
    assert scanners.bracketed_paste.idle and scanners.color_queries.idle and not scanners.bracketed_paste.enabled
    assert scanners.read([plain, "\x1b"]) == b"" and scanners.bracketed_paste.idle  # passed over, its end kept
    assert scanners.read(["[?2004h", coloured]) == b"" and scanners.bracketed_paste.enabled
    assert scanners.read([coloured + "\x1b]11;?\x07"]) == b"\x1b]11;rgb:0000/0000/0000\x1b\\"


def test_a_query_begun_over_several_batches_passed_over_is_answered_once() -> None:
    scanners = OutputScanners(ColorQueryResponder(WHITE, BLACK))
    for piece in ("plain \x1b", "]", "1", "1", ";"):
        assert scanners.read([piece]) == b""
    assert scanners.read(["?\x07 more"]) == b"\x1b]11;rgb:0000/0000/0000\x1b\\"
    assert scanners.read(["what?"]) == b""  # what was read is not read again


def scan_in_batches(batches: list[list[bytes]]) -> tuple[bool, bytes]:
    """What `OutputScanners` concludes from batches of chunks, as the terminal widget's hand-over gives them."""
    scanners = OutputScanners(ColorQueryResponder(WHITE, BLACK, [BLACK, (205, 0, 0)]))
    replies = b"".join(scanners.read([chunk.decode("latin-1") for chunk in batch]) for batch in batches)
    return scanners.bracketed_paste.enabled, replies


def test_batches_of_chunks_read_as_the_whole_stream() -> None:
    assert scan_in_batches([[STREAM]]) == (True, REPLIES)
    for cut in range(1, len(STREAM)):  # every cut between two batches, and between two chunks of one batch
        assert scan_in_batches([[STREAM[:cut]], [STREAM[cut:]]]) == (True, REPLIES), cut
        assert scan_in_batches([[STREAM[:cut], STREAM[cut:]]]) == (True, REPLIES), cut
    single = [STREAM[i : i + 1] for i in range(len(STREAM))]
    assert scan_in_batches([single]) == (True, REPLIES)
    assert scan_in_batches([[byte] for byte in single]) == (True, REPLIES)


def test_a_flood_of_coloured_text_around_the_sequences_in_random_chunks_and_batches_reads_the_same() -> None:
    coloured = b"".join(b"\x1b[3%dmword\x1b[0m " % (n % 8) for n in range(300))
    stream = coloured + STREAM + coloured + b"\x1b[?2004l" + coloured + b"\x1b]10;?\x07" + coloured
    replies = REPLIES + b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\"
    rng = random.Random(5)
    for _ in range(200):
        chunks, at = [], 0
        while at < len(stream):
            size = rng.choice((1, 2, 3, rng.randrange(1, 64), rng.randrange(64, 4096)))
            chunks.append(stream[at : at + size])
            at += size
        batches, at = [], 0
        while at < len(chunks):
            size = rng.randrange(1, 40)
            batches.append(chunks[at : at + size])
            at += size
        assert scan_in_batches(batches) == (False, replies)


def test_a_sequence_begun_at_the_end_of_a_batch_without_rare_bytes_is_read_on() -> None:
    # The batch ends with ESC and `[` in two chunks; the next batch holds the rest, `?2004h`.
    assert scan_in_batches([[b"\x1b[31mred", b"\x1b", b"["], [b"?2004h"]]) == (True, b"")
    assert scan_in_batches([[b"plain \x1b"], [b"]11;?\x07"]]) == (False, b"\x1b]11;rgb:0000/0000/0000\x1b\\")

