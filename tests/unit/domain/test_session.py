import pytest

from idea.domain.ids import SessionId
from idea.domain.session import SessionInfo, SessionKind, SessionState, start_refusal


def session(label: str = "Reviewer") -> SessionInfo:
    return SessionInfo(
        id=SessionId("s1"), kind=SessionKind.AGENT, state=SessionState.STARTING, label=label, cwd="/p", started_at_ms=0
    )


@pytest.mark.parametrize(
    ("reason", "sentence"),
    [
        ("Invalid handle.", "Cannot start cmd.exe: Invalid handle."),
        ("Invalid handle", "Cannot start cmd.exe: Invalid handle."),
        ("not found on PATH. ", "Cannot start cmd.exe: not found on PATH."),
    ],
)
def test_a_refusal_is_one_sentence(reason: str, sentence: str) -> None:
    assert start_refusal("cmd.exe", reason) == sentence


def test_a_refused_start_is_told_in_the_adapters_words_once() -> None:
    failed = session().failed(start_refusal("/usr/bin/claude", "Permission denied"))
    assert failed.describe_end() == "Cannot start /usr/bin/claude: Permission denied."
    assert failed.describe_failed_start() == failed.describe_end()


def test_another_start_error_names_what_could_not_start() -> None:
    assert session().failed("exec failed").describe_end() == "Could not start Reviewer: exec failed"


@pytest.mark.parametrize(
    ("code", "sentence"),
    [
        (1, "Reviewer exited with code 1 as soon as it started"),
        (-9, "Reviewer was killed by signal 9 as soon as it started"),
        (None, "Reviewer exited as soon as it started"),
    ],
)
def test_a_program_that_ends_while_starting_says_how(code: int | None, sentence: str) -> None:
    assert session().exited(code).describe_failed_start() == sentence
