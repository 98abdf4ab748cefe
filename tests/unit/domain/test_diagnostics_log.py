"""The diagnostics log read back: each line's time, tag and project, the filters of Help ▸ Diagnostics, and
the settings a bug report gives without their secrets."""

from __future__ import annotations

from idea.domain.diagnostics_log import LogFilter, parse_line, project_mark, tags_of, without_secrets

PROJECT = "c8dd296a-fff2-4c0c-b817-3d88a0b1b020"
OTHER = "9b1ee0e7-3d38-438d-9d7e-b6397ceace60"


def test_a_line_gives_its_time_tag_message_and_project() -> None:
    line = parse_line(f"1796330612205 [hook] claude SessionStart agent=x {project_mark(PROJECT)}")

    assert line.at_ms == 1796330612205 and line.tag == "hook" and line.project == "c8dd296a"
    assert line.message == "[hook] claude SessionStart agent=x project=c8dd296a"


def test_lines_written_by_hand_or_cut_are_read_without_failing() -> None:
    assert parse_line("") == parse_line("")  # nothing to read: no exception
    cut = parse_line("ready] late half of a line")
    assert (cut.at_ms, cut.tag, cut.project, cut.message) == (None, None, None, "ready] late half of a line")
    odd = parse_line("123 [not a tag] project=XYZ")
    assert odd.at_ms == 123 and odd.tag is None and odd.project is None
    assert parse_line("123 [mcp] a project=c8dd296a0").project is None  # not a mark: nine digits
    assert parse_line("123 [mcp] project=c8dd296a and more").project is None  # only a line's end marks it


def test_the_filters_keep_a_tag_a_project_and_a_text_whatever_its_case() -> None:
    lines = [
        parse_line(f"1 [rendezvous] ask ticket=t from=Main to=QA {project_mark(PROJECT)}"),
        parse_line(f"2 [rendezvous] ask ticket=u from=Main to=QA {project_mark(OTHER)}"),
        parse_line(f"3 [project] opened id={PROJECT} root=/tmp/p"),
        parse_line(f"4 [mcp] listening on /tmp/idea-mcp/{PROJECT.replace('-', '')}.sock"),
        parse_line("5 [startup] IdeA launched"),
    ]

    def shown(chosen: LogFilter) -> list[int | None]:
        return [line.at_ms for line in lines if chosen.matches(line)]

    assert shown(LogFilter()) == [1, 2, 3, 4, 5]
    assert shown(LogFilter(tag="rendezvous")) == [1, 2]
    assert shown(LogFilter(project=PROJECT)) == [1, 3, 4]  # its mark, its id in either form
    assert shown(LogFilter(project=OTHER)) == [2]
    assert shown(LogFilter(tag="rendezvous", project=OTHER, text="TO=qa")) == [2]
    assert shown(LogFilter(text="nowhere")) == []
    assert tags_of(lines) == ["mcp", "project", "rendezvous", "startup"]


def test_settings_lose_every_value_whose_key_names_a_secret() -> None:
    document = {
        "version": 1,
        "colorScheme": "dark",
        "terminalFont": {"family": "Hack", "pointSize": 11},
        "githubToken": "ghp_x",
        "proxy": {"password": "p", "user": "me", "api_key": "k"},
        "env": [{"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_AUTH": "o", "PATH": "/usr/bin"}],
    }

    assert without_secrets(document) == {
        "version": 1,
        "colorScheme": "dark",
        "terminalFont": {"family": "Hack", "pointSize": 11},
        "githubToken": "<redacted>",
        "proxy": {"password": "<redacted>", "user": "me", "api_key": "<redacted>"},
        "env": [{"ANTHROPIC_API_KEY": "<redacted>", "OPENAI_AUTH": "<redacted>", "PATH": "/usr/bin"}],
    }
