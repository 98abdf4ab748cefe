"""IdeA's data folder is created and checked writable before anything is written in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from idea.domain.errors import AppError, ErrorCode
from idea.infrastructure.paths import prepare_data_dir


def test_the_folder_is_created_and_left_empty(tmp_path: Path) -> None:
    directory = tmp_path / "a" / "data"
    assert prepare_data_dir(directory) == directory
    assert directory.is_dir() and list(directory.iterdir()) == []


def test_a_folder_that_cannot_be_made_says_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(AppError) as raised:
        prepare_data_dir(tmp_path / "file" / "data")
    assert raised.value.code == ErrorCode.STORE
    message = raised.value.message  # the system's reason in the brackets: "Not a directory" here
    assert message.startswith(f"its data folder {tmp_path / 'file' / 'data'} cannot be written (")
    assert message.endswith("). Make it writable or free some space, or set IDEA_DATA_DIR to a folder you can write")
