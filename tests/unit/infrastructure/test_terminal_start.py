"""The words every terminal adapter refuses a start in."""

from __future__ import annotations

import pytest

from idea.domain.errors import ErrorCode
from idea.infrastructure.terminal.start import start_refused


@pytest.mark.parametrize("reason", ["Invalid handle.", "Invalid handle", "Invalid handle. "])
def test_a_refused_start_says_the_program_and_the_reason_in_one_sentence(reason: str) -> None:
    error = start_refused("C:\\Windows\\System32\\cmd.exe", reason)

    assert error.code is ErrorCode.PROCESS
    assert error.message == "Cannot start C:\\Windows\\System32\\cmd.exe: Invalid handle."
