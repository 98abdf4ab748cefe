"""`<user-data>/profiles.json` and the reference profiles shipped in idea/resources/profiles/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from idea.domain.errors import AppError, ErrorCode
from idea.domain.profile import Profile
from idea.domain.profile_book import ProfileBook
from idea.infrastructure.fs import read_json
from idea.infrastructure.resources import resources_dir
from idea.infrastructure.stores.document_file import DocumentFile, describe_validation_error

FILE_NAME = "profiles.json"

_shipped_list = TypeAdapter(list[Profile])


def reference_profiles_path() -> Path:
    return resources_dir() / "profiles" / "reference-profiles.json"


class JsonProfileStore:
    def __init__(self, user_data_dir: Path, shipped_path: Path | None = None) -> None:
        self._file = DocumentFile(user_data_dir / FILE_NAME, ProfileBook, salvage=True)
        self._shipped_path = shipped_path if shipped_path is not None else reference_profiles_path()
        self._shipped: list[Profile] | None = None  # read once: the shipped file does not change while IdeA runs

    def load(self) -> ProfileBook | None:
        return self._file.load_or_none()

    def save(self, book: ProfileBook) -> None:
        self._file.save(book)

    def update(self, change: Callable[[ProfileBook], ProfileBook]) -> ProfileBook:
        return self._file.update(change)

    def reference_profiles(self) -> list[Profile]:
        """The shipped definitions; a broken resource is a packaging bug, reported as INTERNAL."""
        if self._shipped is None:
            self._shipped = self._read_shipped()
        return list(self._shipped)

    def _read_shipped(self) -> list[Profile]:
        data = read_json(self._shipped_path)
        if data is None:
            raise AppError(ErrorCode.INTERNAL, f"The reference profiles are missing: {self._shipped_path}")
        try:
            return _shipped_list.validate_python(data)
        except ValidationError as exc:
            raise AppError(
                ErrorCode.INTERNAL,
                f"The reference profiles in {self._shipped_path} are invalid: {describe_validation_error(exc)}",
            ) from exc
