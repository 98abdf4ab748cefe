"""LR-1 and the pure rules around automatic resumes: episodes, re-limits, staggering, the countdown."""

from __future__ import annotations

import pytest

from idea.domain.agent_states.session_limit import (
    DAY_MS,
    HOUR_MS,
    MINUTE_MS,
    HumanFallback,
    LimitEpisodes,
    LimitReport,
    RateLimitSource,
    RelimitGuard,
    Scheduled,
    SessionLimit,
    format_countdown,
    is_suspicious_reset,
    plan_resume,
    staggered_fire_at,
)

NOW = 1_781_368_615_582


class TestPlanResume:
    def test_future_reset_is_scheduled_at_the_reset(self) -> None:
        limit = SessionLimit(NOW + HOUR_MS, NOW, RateLimitSource.PATTERN)
        assert plan_resume(NOW, limit, "conv") == Scheduled(NOW + HOUR_MS, "conv")

    def test_past_reset_fires_now(self) -> None:
        limit = SessionLimit(NOW - 10 * MINUTE_MS, NOW, RateLimitSource.STRUCTURED)
        assert plan_resume(NOW, limit, None) == Scheduled(NOW, None)

    def test_unknown_reset_goes_to_the_person(self) -> None:
        assert plan_resume(NOW, SessionLimit(None, NOW, RateLimitSource.PATTERN), "c") == HumanFallback()


def test_a_reset_more_than_eight_days_ahead_is_suspicious() -> None:
    assert not is_suspicious_reset(NOW, NOW + 8 * DAY_MS)
    assert is_suspicious_reset(NOW, NOW + 8 * DAY_MS + 1)


class TestEpisodes:
    def test_same_reset_within_a_minute_is_one_episode(self) -> None:
        episodes = LimitEpisodes()
        assert episodes.is_new(LimitReport("a", NOW + HOUR_MS, NOW))
        assert not episodes.is_new(LimitReport("a", NOW + HOUR_MS + 59_000, NOW + 5000))
        assert episodes.is_new(LimitReport("a", NOW + 2 * HOUR_MS, NOW + 6000))

    def test_agents_have_their_own_episodes(self) -> None:
        episodes = LimitEpisodes()
        assert episodes.is_new(LimitReport("a", NOW + HOUR_MS, NOW))
        assert episodes.is_new(LimitReport("b", NOW + HOUR_MS, NOW))

    def test_untimed_reports_within_ten_minutes_are_one_episode_while_they_keep_coming(self) -> None:
        episodes = LimitEpisodes()
        assert episodes.is_new(LimitReport("a", None, NOW))
        assert not episodes.is_new(LimitReport("a", None, NOW + 9 * MINUTE_MS))
        assert not episodes.is_new(LimitReport("a", None, NOW + 18 * MINUTE_MS))  # the screen still shows it
        assert episodes.is_new(LimitReport("a", None, NOW + 29 * MINUTE_MS))

    def test_a_time_after_an_untimed_report_is_news(self) -> None:
        episodes = LimitEpisodes()
        assert episodes.is_new(LimitReport("a", None, NOW))
        assert episodes.is_new(LimitReport("a", NOW + HOUR_MS, NOW + 1000))

    def test_forget_ends_the_episode(self) -> None:
        episodes = LimitEpisodes()
        assert episodes.is_new(LimitReport("a", NOW + HOUR_MS, NOW))
        episodes.forget("a")
        assert episodes.is_new(LimitReport("a", NOW + HOUR_MS, NOW + 1000))


class TestRelimits:
    def test_three_relimits_within_an_hour_stop_automatic_resumes(self) -> None:
        guard = RelimitGuard()
        assert guard.limited("a", NOW)  # the first limit
        for n in range(1, 3):
            guard.resumed("a", NOW + n * 10 * MINUTE_MS)
            assert guard.limited("a", NOW + n * 10 * MINUTE_MS + 30_000)
        guard.resumed("a", NOW + 30 * MINUTE_MS)
        assert not guard.limited("a", NOW + 30 * MINUTE_MS + 119_000)

    def test_a_resume_that_held_breaks_the_streak(self) -> None:
        guard = RelimitGuard()
        for n in range(2):
            guard.resumed("a", NOW + n * MINUTE_MS * 5)
            assert guard.limited("a", NOW + n * MINUTE_MS * 5 + 1000)
        guard.resumed("a", NOW + 20 * MINUTE_MS)
        assert guard.limited("a", NOW + 40 * MINUTE_MS)  # 20 minutes of work: not a re-limit
        guard.resumed("a", NOW + 50 * MINUTE_MS)
        assert guard.limited("a", NOW + 50 * MINUTE_MS + 1000)

    def test_relimits_older_than_an_hour_do_not_count(self) -> None:
        guard = RelimitGuard()
        for start in (0, 5 * MINUTE_MS, 70 * MINUTE_MS):
            guard.resumed("a", NOW + start)
            assert guard.limited("a", NOW + start + 1000)

    def test_reset_starts_over(self) -> None:
        guard = RelimitGuard()
        for n in range(2):
            guard.resumed("a", NOW + n * MINUTE_MS)
            guard.limited("a", NOW + n * MINUTE_MS + 1000)
        guard.reset("a")
        guard.resumed("a", NOW + 3 * MINUTE_MS)
        assert guard.limited("a", NOW + 3 * MINUTE_MS + 1000)


class TestStaggering:
    def test_alone_it_fires_on_time(self) -> None:
        assert staggered_fire_at(NOW, []) == NOW

    def test_resumes_within_the_same_second_are_spaced_by_two_seconds(self) -> None:
        assert staggered_fire_at(NOW, [NOW]) == NOW + 2000
        assert staggered_fire_at(NOW + 300, [NOW]) == NOW + 2000
        assert staggered_fire_at(NOW, [NOW, NOW + 2000]) == NOW + 4000

    def test_far_apart_resumes_are_untouched(self) -> None:
        assert staggered_fire_at(NOW, [NOW + 5000, NOW - 5000]) == NOW


@pytest.mark.parametrize(
    ("remaining", "text"),
    [
        (30_000, "less than a minute"),
        (60_000, "1 min"),
        (12 * MINUTE_MS, "12 min"),
        (12 * MINUTE_MS - 1, "12 min"),
        (HOUR_MS, "1 h"),
        (2 * HOUR_MS + 10 * MINUTE_MS, "2 h 10"),
        (2 * HOUR_MS + 5 * MINUTE_MS, "2 h 05"),
        (3 * DAY_MS + 4 * HOUR_MS, "3 d 4 h"),
        (2 * DAY_MS, "2 d"),
    ],
)
def test_countdown(remaining: int, text: str) -> None:
    assert format_countdown(remaining) == text
