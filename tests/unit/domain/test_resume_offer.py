"""The resume offer's rows (spec 05 §11): the default choice and what resuming means."""

from __future__ import annotations

from idea.domain.agent_states.resume_offer import ResumeChoice, ResumeCandidate, native_resume


def row(native: bool) -> ResumeCandidate:
    return ResumeCandidate("a", "Architect", None, "conv", native_resume=native, subject="review the ports")


def test_default_choice_resumes_only_what_can_be_resumed_by_id() -> None:
    assert row(True).default_choice is ResumeChoice.RESUME
    assert row(False).default_choice is ResumeChoice.SKIP
    assert "own conversation" in row(True).resume_meaning()
    assert "summary" in row(False).resume_meaning()


def test_native_resume_needs_both_a_strategy_and_a_known_id() -> None:
    assert native_resume(True, "9b2f7c1e-0d3a-4e5b-8c6d-7e8f9a0b1c2d")
    assert not native_resume(True, None)
    assert not native_resume(False, "9b2f7c1e-0d3a-4e5b-8c6d-7e8f9a0b1c2d")
