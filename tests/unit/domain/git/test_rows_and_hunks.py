"""Display rows of a diff (unified, side by side) and applying one hunk's bytes."""

from __future__ import annotations

import pytest

from idea.domain.errors import AppError
from idea.domain.git.diff import Diff, DiffKind, DiffLine, DiffSpec, FileDiff, Hunk, LineKind
from idea.domain.git.hunks import RawHunk, RawLine, apply_hunk
from idea.domain.git.model import ChangeKind, display_path
from idea.domain.git.rows import (
    Row,
    RowKind,
    anchor_rows,
    file_row_index,
    line_of,
    note_for,
    side_by_side_rows,
    unified_rows,
)

C, A, R = LineKind.CONTEXT, LineKind.ADDED, LineKind.REMOVED


def sample() -> Diff:
    hunk = Hunk(
        "@@ -1,4 +1,4 @@ def f",
        1, 4, 1, 4,
        (
            DiffLine(C, 1, 1, "a"),
            DiffLine(R, 2, None, "b"),
            DiffLine(R, 3, None, "c"),
            DiffLine(A, None, 2, "B"),
            DiffLine(C, 4, 3, "d"),
            DiffLine(A, None, 4, "e"),
        ),
    )
    text = FileDiff("f.py", "f.py", ChangeKind.MODIFIED, (hunk,), additions=2, deletions=2)
    binary = FileDiff("x.bin", "x.bin", ChangeKind.MODIFIED, binary=True, old_size=10, new_size=3 * 1024 * 1024)
    return Diff(DiffSpec(DiffKind.WORKING), (text, binary))


def test_unified_rows_are_one_per_line_with_file_and_hunk_headers() -> None:
    rows = unified_rows(sample())
    assert [r.kind for r in rows] == [RowKind.FILE, RowKind.HUNK, *[RowKind.LINE] * 6, RowKind.FILE, RowKind.NOTE]
    assert rows[2] == Row(RowKind.LINE, 0, 0, 0)
    assert file_row_index(rows, 1) == 8


def test_side_by_side_pairs_removed_runs_with_the_added_lines_that_follow() -> None:
    lines = [(r.left, r.right) for r in side_by_side_rows(sample()) if r.kind is RowKind.LINE]
    assert lines == [(0, 0), (1, 3), (2, -1), (4, 4), (-1, 5)]


def test_notes_for_files_without_lines() -> None:
    binary = sample().files[1]
    assert note_for(binary) == "Binary file, not shown (10 bytes → 3.0 MB)."
    elided = FileDiff("big.log", "big.log", ChangeKind.MODIFIED, additions=30_000, elided=True)
    assert note_for(elided) == "30,000 changed lines: too many to show here."
    assert sample().stats_text() == "2 files changed, +2 −2"


def test_range_header_drops_the_function_context() -> None:
    assert sample().files[0].hunks[0].range_header == "@@ -1,4 +1,4 @@"


def raw(*lines: tuple[str, bytes], old: tuple[int, int], new: tuple[int, int]) -> RawHunk:
    return RawHunk(old[0], old[1], new[0], new[1], tuple(RawLine(o, d) for o, d in lines))


def test_apply_and_reverse_a_hunk() -> None:
    hunk = raw((" ", b"a\n"), ("-", b"b\n"), ("+", b"B\n"), (" ", b"c\n"), old=(2, 3), new=(2, 3))
    base = b"0\na\nb\nc\nz\n"
    changed = apply_hunk(base, hunk)
    assert changed == b"0\na\nB\nc\nz\n"
    assert apply_hunk(changed, hunk, reverse=True) == base


def test_a_pure_insertion_goes_after_its_anchor_line_and_into_an_empty_file() -> None:
    assert apply_hunk(b"a\nb\n", raw(("+", b"x\n"), old=(1, 0), new=(2, 1))) == b"a\nx\nb\n"
    assert apply_hunk(b"", raw(("+", b"new\n"), old=(0, 0), new=(1, 1))) == b"new\n"


def test_a_hunk_that_does_not_fit_the_content_is_refused() -> None:
    hunk = raw((" ", b"a\n"), ("-", b"b\n"), old=(1, 2), new=(1, 1))
    with pytest.raises(AppError, match="changed since"):
        apply_hunk(b"a\nX\n", hunk)


def test_non_utf8_file_names_are_shown_with_escapes() -> None:
    assert display_path("caf\udce9 menu.txt") == "caf\\xe9 menu.txt"
    assert display_path("plain/ü.txt") == "plain/ü.txt"


def test_comments_are_anchored_to_the_row_drawing_their_line() -> None:
    diff = sample()
    unified = unified_rows(diff)
    where = anchor_rows(diff, unified)
    assert unified[where[("f.py", "old", 2)]] == Row(RowKind.LINE, 0, 0, 1)  # removed "b"
    assert unified[where[("f.py", "new", 2)]] == Row(RowKind.LINE, 0, 0, 3)  # added "B"
    assert where[("f.py", "old", 4)] == where[("f.py", "new", 3)]  # the context line "d", both sides
    paired = side_by_side_rows(diff)
    both = anchor_rows(diff, paired)
    assert both[("f.py", "old", 2)] == both[("f.py", "new", 2)]  # "b" faces "B" on one row
    row = paired[both[("f.py", "old", 2)]]
    assert line_of(diff, row, "old")[:2] == ("old", 2) and line_of(diff, row, "new")[:2] == ("new", 2)
    blank_left = paired[both[("f.py", "new", 4)]]  # "e" added, nothing faces it
    assert line_of(diff, blank_left, "old")[:2] == ("new", 4)
    assert line_of(diff, unified[where[("f.py", "old", 3)]], None)[:2] == ("old", 3)
