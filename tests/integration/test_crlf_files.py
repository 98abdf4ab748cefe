"""Files saved by Windows editors (CRLF line ends) read like any other, and the files IdeA updates in place
keep their line ends: a persona, the project's .gitignore, JSON and TOML documents."""

from __future__ import annotations

import tomllib
from pathlib import Path

from idea.domain.project import GITIGNORE_BEGIN, GITIGNORE_END
from idea.infrastructure.fs import read_json, read_text
from idea.infrastructure.project_folder import LocalProjectFolder
from idea.infrastructure.stores.personas import MarkdownPersonaStore


def test_a_crlf_persona_reads_as_plain_lines(tmp_path: Path) -> None:
    (tmp_path / ".ideai" / "agents").mkdir(parents=True)
    (tmp_path / ".ideai" / "agents" / "dev.md").write_bytes(b"# Developer\r\n\r\nYou write code.\r\n")

    assert MarkdownPersonaStore().read(str(tmp_path), "agents/dev.md") == "# Developer\n\nYou write code.\n"
    assert read_text(tmp_path / ".ideai" / "agents" / "dev.md") == "# Developer\n\nYou write code.\n"


def test_a_crlf_gitignore_gets_the_managed_block_with_crlf_and_keeps_its_lines(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"node_modules/\r\n*.log\r\n")

    LocalProjectFolder().ensure_scaffold(str(tmp_path))

    data = (tmp_path / ".gitignore").read_bytes()
    assert data.startswith(b"node_modules/\r\n*.log\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # no bare LF sneaked in
    text = data.decode().replace("\r\n", "\n")
    assert GITIGNORE_BEGIN in text and GITIGNORE_END in text
    before = data
    LocalProjectFolder().ensure_scaffold(str(tmp_path))
    assert (tmp_path / ".gitignore").read_bytes() == before  # nothing to change the second time


def test_crlf_json_and_toml_parse(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_bytes(b'{\r\n  "colorScheme": "dark"\r\n}\r\n')
    (tmp_path / "config.toml").write_bytes(b'model = "o4"\r\n[projects."C:\\\\x"]\r\ntrust_level = "trusted"\r\n')

    assert read_json(tmp_path / "settings.json") == {"colorScheme": "dark"}
    assert tomllib.loads((tmp_path / "config.toml").read_bytes().decode())["projects"]["C:\\x"] == {
        "trust_level": "trusted"
    }
