"""LR-8 and LR-9: level 2 of usage-limit detection on terminal output and on the read-back screen."""

from __future__ import annotations

import json
import random
from datetime import datetime
from zoneinfo import ZoneInfo

from idea.infrastructure.resources import resources_dir
from idea.domain.profile import Profile
from idea.domain.profile_parts import RateLimitPattern
from idea.domain.agent_states.session_limit import LimitEpisodes, LimitReport
from idea.infrastructure.limits.detector import (
    TAIL_BYTES,
    LimitMatch,
    OutputLimitScanner,
    RateLimitParser,
    ReadbackThrottle,
    WINDOW_CHARS,
    screen_limit,
    visible_stream_end,
    visible_stream_text,
)

PARIS = ZoneInfo("Europe/Paris")
NOW = int(datetime(2026, 6, 17, 10, 0, tzinfo=PARIS).timestamp() * 1000)
REFERENCE = resources_dir() / "profiles" / "reference-profiles.json"


def reference(slug_name: str) -> Profile:
    profiles = [Profile.from_json(p) for p in json.loads(REFERENCE.read_text(encoding="utf-8"))]
    return next(p for p in profiles if p.name == slug_name)


def feed(scanner: OutputLimitScanner, data: bytes) -> LimitMatch | None:
    scanner.feed(data)
    return scanner.scan(NOW)


def claude_parser() -> RateLimitParser:
    parser = RateLimitParser(reference("Claude Code").rate_limit_pattern, tz=PARIS)
    assert parser.active and parser.problem is None
    return parser


def at(hour: int, minute: int = 0, tz: ZoneInfo = PARIS) -> int:
    return int(datetime(2026, 6, 17, hour, minute, tzinfo=tz).timestamp() * 1000)


def test_message_split_across_chunks_in_ansi_colours_is_detected_once() -> None:
    scanner = OutputLimitScanner(claude_parser())
    episodes = LimitEpisodes()
    chunks = [
        b"\x1b[2K\x1b[1G\x1b[38;5;174m\xe2\x8e\xbf  Claude usage limit reac",
        b"hed\x1b[39m \xe2\x88\x99 \x1b[1mres",
        b"ets 3\x1b[22m",
        b"pm (Europe/Paris)\x1b[0m\r\n",
        b"\x1b[2m> \x1b[0m",
    ]
    reports = []
    for chunk in chunks:  # a scan after every chunk: the most a flowing output gets
        scanner.feed(chunk)
        match = scanner.scan(NOW)
        if match is not None:
            reports.append(match)
    assert scanner.scan(NOW, final=True) is None
    assert len(reports) == 1
    assert reports[0].resets_at_ms == at(15)
    # the same message read back from the screen a moment later is the same episode
    again = screen_limit(claude_parser(), "  Claude usage limit reached ∙ resets 3pm (Europe/Paris)\n> ", NOW + 500)
    assert again is not None and again.resets_at_ms == at(15)
    assert episodes.is_new(LimitReport("a", reports[0].resets_at_ms, NOW))
    assert not episodes.is_new(LimitReport("a", again.resets_at_ms, NOW + 500))


def test_claude_code_2_1_wording_is_read_on_the_stream_and_on_the_screen() -> None:
    """ "You've hit your <limit> · resets <time>", a date when the reset is more than a day away."""
    scanner = OutputLimitScanner(claude_parser())
    line = "\x1b[31m⎿  You’ve hit your session limit\x1b[39m · resets 3pm (Europe/Paris)\x1b[0m\r\n"
    match = feed(scanner, line.encode())
    assert match is not None and match.resets_at_ms == at(15)
    weekly = "You're out of usage credits · resets Jun 20, 9:30am (UTC) · contact your admin to increase it"
    match = screen_limit(claude_parser(), f"  {weekly}\n> ", NOW)
    assert match is not None
    assert match.resets_at_ms == int(datetime(2026, 6, 20, 9, 30, tzinfo=ZoneInfo("UTC")).timestamp() * 1000)
    # a limit without a reset time is the transcript's to report (level 1): no guess from the screen
    assert screen_limit(claude_parser(), "You've hit your monthly spend limit · raise it at claude.ai", NOW) is None


def test_codex_usage_limit_is_read_with_its_time_or_without_one() -> None:
    """Codex 0.171: "You’ve hit your usage limit. … try again at 3:05 PM." (a date past today)."""
    parser = RateLimitParser(reference("Codex").rate_limit_pattern, tz=PARIS)
    assert parser.active and parser.problem is None
    scanner = OutputLimitScanner(parser)
    plus = (
        "\x1b[31m■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit\r\n"
        "  https://chatgpt.com/settings/usage to purchase more credits or try again at 3:05 PM.\x1b[0m\r\n"
    )
    match = feed(scanner, plus.encode())
    assert match is not None and match.resets_at_ms == at(15, 5)
    match = screen_limit(parser, "■ You’ve hit your usage limit. Try again at Jun 19th, 2026 9:30 AM.\n› ", NOW)
    assert match is not None and match.resets_at_ms == int(datetime(2026, 6, 19, 9, 30, tzinfo=PARIS).timestamp() * 1000)
    match = screen_limit(parser, "■ You've hit your usage limit. Try again later.", NOW)
    assert match is not None and match.resets_at_ms is None  # the human net asks when
    assert feed(OutputLimitScanner(parser), b"You've hit your usage limit. Upgrade to Plus") is None  # no guess


def test_gemini_usage_limit_dialog_gives_its_reset_time() -> None:
    """Gemini CLI 0.61's quota dialog: "Usage limit reached for <model>." then "Access resets at 3:05 PM PST."
    (Intl's short zone name: the machine's own zone, the one IdeA reads the time in)."""
    parser = RateLimitParser(reference("Gemini CLI").rate_limit_pattern, tz=PARIS)
    assert parser.active and parser.problem is None
    screen = (
        "╭──────────────────────────────────────────────╮\n"
        "│ Usage limit reached for gemini-2.5-pro.      │\n"
        "│ Access resets at 3:05 PM GMT+2.              │\n"
        "│ /stats model for usage details               │\n"
        "│ ● 1. Switch to gemini-2.5-flash              │\n"
    )
    match = screen_limit(parser, screen, NOW)
    assert match is not None and match.resets_at_ms == at(15, 5)
    assert screen_limit(parser, "We are currently experiencing high demand for gemini-2.5-pro.", NOW) is None


def test_a_match_at_the_end_of_the_output_waits_for_the_rest_or_for_quiet() -> None:
    scanner = OutputLimitScanner(claude_parser())
    assert feed(scanner, b"5-hour limit reached - resets 3") is None
    match = feed(scanner, b"pm\r\n")
    assert match is not None and match.resets_at_ms == at(15)
    assert feed(scanner, b"5-hour limit reached - resets 4pm") is None
    flushed = scanner.scan(NOW, final=True)
    assert flushed is not None and flushed.resets_at_ms == at(16)
    assert scanner.scan(NOW, final=True) is None


def test_escape_sequence_cut_between_chunks_leaves_no_debris() -> None:
    parser = RateLimitParser(RateLimitPattern(pattern=r"\blimit reached\b"))
    scanner = OutputLimitScanner(parser)
    assert feed(scanner, b"usage \x1b[3") is None
    assert feed(scanner, b"1mlimit reached\x1b[0m now") is not None


def test_a_match_without_a_readable_time_has_no_reset() -> None:
    parser = RateLimitParser(RateLimitPattern(pattern=r"(?i)rate limited(?: until (?P<t>\S+))?", reset_capture="t"))
    scanner = OutputLimitScanner(parser)
    match = feed(scanner, b"Rate limited until someday.\n")
    assert match is not None and match.resets_at_ms is None
    match = feed(scanner, b"Rate limited, sorry\n")
    assert match is not None and match.resets_at_ms is None


def test_full_screen_tui_words_placed_by_cursor_moves_are_read_on_the_screen() -> None:
    parser = claude_parser()
    scanner = OutputLimitScanner(parser)
    # each word drawn at an absolute position, in reverse order: the stream never holds the sentence
    words = ["(Europe/Paris)", "3pm", "resets", "reached", "limit", "usage", "Claude"]
    stream = b"".join(f"\x1b[5;{60 - i * 8}H{w}".encode() for i, w in enumerate(words))
    assert feed(scanner, stream) is None and scanner.scan(NOW, final=True) is None
    screen = "\n\n\n\n  Claude usage limit reached resets 3pm (Europe/Paris)"
    match = screen_limit(parser, screen, NOW)
    assert match is not None and match.resets_at_ms == at(15)


def test_screen_line_wrapped_at_the_width_is_read_both_ways() -> None:
    parser = claude_parser()
    match = screen_limit(parser, "Claude usage limit reached ∙ resets 3p\nm", NOW)
    assert match is not None and match.resets_at_ms == at(15)


def test_profile_without_a_pattern_never_reports_a_limit_on_a_megabyte_of_output() -> None:
    rng = random.Random(7)
    words = ["limit", "reached", "resets", "3pm", "usage", "rate", "token", "error", "\x1b[31m", "\x1b[0m", "\r\n"]
    capture = "".join(rng.choice(words) + " " for _ in range(200_000)).encode()[: 1 << 20]
    for profile in (reference("Aider"), reference("Aider").model_copy(update={"name": "My CLI"})):
        assert profile.rate_limit_pattern is None
        parser = RateLimitParser(profile.rate_limit_pattern)
        scanner = OutputLimitScanner(parser)
        for offset in range(0, len(capture), 4096):
            assert feed(scanner, capture[offset : offset + 4096]) is None
        assert scanner.scan(NOW, final=True) is None
        assert screen_limit(parser, capture[-8000:].decode(), NOW) is None


def test_reference_pattern_stays_quiet_on_ordinary_agent_output() -> None:
    scanner = OutputLimitScanner(claude_parser())
    ordinary = (
        "● Reading src/limits.py\n  The retry limit is reached after 3 attempts; the counter resets when a call succeeds.\n"
        "\x1b[32m✓\x1b[0m Tests pass. Next: rate-limit the API client.\n"
    ).encode()
    for _ in range(2000):
        assert feed(scanner, ordinary) is None
    assert scanner.scan(NOW, final=True) is None


def test_invalid_pattern_disables_level_two_with_a_reason() -> None:
    parser = RateLimitParser(RateLimitPattern(pattern="(unclosed"))
    assert not parser.active
    assert parser.problem is not None and "not a valid regular expression" in parser.problem
    assert feed(OutputLimitScanner(parser), b"(unclosed") is None


def test_unknown_capture_group_is_reported_and_the_limit_still_seen() -> None:
    parser = RateLimitParser(RateLimitPattern(pattern="limit reached", reset_capture="reset"))
    assert parser.active and parser.problem is not None and "'reset'" in parser.problem
    match = feed(OutputLimitScanner(parser), b"limit reached!\n")
    assert match is not None and match.resets_at_ms is None


def test_control_sequences_are_removed_and_blanks_collapsed() -> None:
    text = "a\x1b[1;31mb\x1b]0;title\x07c\x1bP1$r\x1b\\d\x1b(Be\x07f\tg\r\n\n h\x1b7"
    assert visible_stream_text(text) == "ab c d e f g h "  # colours vanish, moves become blanks


def test_readback_throttle_waits_for_quiet_and_spaces_readbacks() -> None:
    throttle = ReadbackThrottle()
    assert not throttle.due(0)
    throttle.output(1000)
    assert not throttle.due(1299)
    assert throttle.due(1300)
    throttle.read_back(1300)
    assert not throttle.due(5000)  # nothing new on screen
    throttle.output(1400)
    assert throttle.next_check_ms() == 3300  # quiet since 1700, but the last readback was at 1300
    assert not throttle.due(3299) and throttle.due(3300)
    throttle.read_back(3300)
    throttle.output(9000)
    throttle.output(9200)
    assert not throttle.due(9400) and throttle.due(9500)


def test_a_flood_between_two_scans_is_read_only_at_its_end() -> None:
    scanner = OutputLimitScanner(claude_parser())
    scanner.feed(b"Claude usage limit reached \xe2\x88\x99 resets 3pm\r\n")  # scrolled away in the flood...
    for _ in range(100):
        scanner.feed(b"x" * 4096)
    scanner.feed(b"\r\n5-hour limit reached \xe2\x88\x99 resets 4pm (Europe/Paris)\r\n")  # ...this one is last
    match = scanner.scan(NOW)
    assert match is not None and match.resets_at_ms == at(16)
    assert scanner.scan(NOW, final=True) is None
    assert TAIL_BYTES < 100 * 4096


def test_a_flood_handed_over_in_one_batch_is_read_at_its_end() -> None:
    """The terminal hands a flood over in large batches: only their tail is kept, the message at the end is read,
    and one cut between two batches still reads whole."""
    scanner = OutputLimitScanner(claude_parser())
    scanner.feed(b"Claude usage limit reached \xe2\x88\x99 resets 3pm\r\n")  # scrolled away in the flood...
    scanner.feed(b"\x1b[32mbuilding\x1b[0m " * 40_000 + b"\r\n5-hour limit reached \xe2\x88\x99 res")
    scanner.feed(b"ets 4pm (Europe/Paris)\r\n")  # ...this one ends it, cut between two batches
    match = scanner.scan(NOW)
    assert match is not None and match.resets_at_ms == at(16)
    assert scanner.scan(NOW, final=True) is None


def test_the_end_of_a_flood_as_a_terminal_may_give_it_tells_what_the_whole_flood_tells() -> None:
    """A terminal may give its output subscribers only the end of a batch, more than `OUTPUT_TAIL_BYTES` of it
    (`TerminalSession.on_output`): the limit scanner and the prompt watcher conclude the same as from it all."""
    from idea.application.orchestrator.cold_start import PromptPatternWatcher
    from idea.application.ports import OUTPUT_TAIL_BYTES

    message = "\x1b[38;5;174m⎿  Claude usage limit reached\x1b[39m ∙ resets 3pm (Europe/Paris)\x1b[0m\r\n".encode()
    prompt = "\x1b[2m❯ \x1b[0m".encode()
    rng = random.Random(3)
    for _ in range(40):
        batches = []
        for _ in range(rng.randrange(1, 6)):
            filler = b"".join(b"\x1b[3%dmline %d of a long build log\x1b[0m\r\n" % (n % 8, n) for n in range(rng.randrange(1, 9000)))
            cut = rng.randrange(len(filler))
            extra = rng.choice((b"", message, prompt, message + prompt))
            batches.append(filler[:cut] + extra + filler[cut:] if rng.random() < 0.5 else filler + extra)
        whole, tail = OutputLimitScanner(claude_parser()), OutputLimitScanner(claude_parser())
        whole_prompt, tail_prompt = PromptPatternWatcher("❯"), PromptPatternWatcher("❯")
        for batch in batches:
            end = batch if len(batch) <= OUTPUT_TAIL_BYTES else batch[-(OUTPUT_TAIL_BYTES + rng.randrange(1, 4096)) :]
            whole.feed(batch)
            tail.feed(end)
            found, found_in_tail = whole.scan(NOW), tail.scan(NOW)
            assert (found and found.resets_at_ms) == (found_in_tail and found_in_tail.resets_at_ms)
            assert whole_prompt.feed(batch) == tail_prompt.feed(end)
        final, final_in_tail = whole.scan(NOW, final=True), tail.scan(NOW, final=True)
        assert (final and final.resets_at_ms) == (final_in_tail and final_in_tail.resets_at_ms)
    assert OUTPUT_TAIL_BYTES >= 2 * TAIL_BYTES


def test_the_window_stripped_backwards_is_the_one_the_whole_end_gives() -> None:
    """The scanner strips a flood's end only as far back as its window needs: cut into pieces just before escape
    sequences, it reads the same last `WINDOW_CHARS` as stripping the whole end at once, whatever the output."""
    rng = random.Random(5)
    pieces = (
        lambda: f"\x1b[3{rng.randrange(8)}mword{rng.randrange(99)}\x1b[0m ",
        lambda: f"\x1b[38;2;{rng.randrange(256)};{rng.randrange(256)};{rng.randrange(256)}m" + rng.choice("abc ⎿∙"),
        lambda: "\r\n" + " " * rng.randrange(4),
        lambda: f"\x1b]8;;https://example.com/{rng.randrange(10**6)}\x1b\\link\x1b]8;;\x1b\\",
        lambda: f"\x1b[{rng.randrange(40)};{rng.randrange(80)}H",
        lambda: "\x1b]0;title\x07 \t ",
        lambda: "plain text " * rng.randrange(1, 5),
    )
    reach = WINDOW_CHARS * 8
    for _ in range(120):
        raw = "".join(rng.choice(pieces)() for _ in range(rng.randrange(1, 4000)))
        assert visible_stream_end(raw, WINDOW_CHARS, reach)[-WINDOW_CHARS:] == visible_stream_text(raw[-reach:])[-WINDOW_CHARS:]
