"""`.ideai/layouts.json`, in the original IdeA's format."""

from __future__ import annotations

import threading
from pathlib import Path

from idea.domain.layout import DecodedDocument, InvalidLayoutError, LayoutDocument, decode_document, encode_document
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_json, quarantine, read_json

FILE_NAME = "layouts.json"


class JsonLayoutStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()

    @staticmethod
    def path(root: str) -> Path:
        return Path(root) / IDEAI_DIR / FILE_NAME

    def load(self, root: str) -> DecodedDocument | None:
        path = self.path(root)
        with self._lock:
            data = read_json(path)
            if data is None:
                return None
            try:
                return decode_document(data)
            except InvalidLayoutError as exc:
                raise quarantine(path, exc.message) from exc

    def save(self, root: str, document: LayoutDocument) -> None:
        with self._lock:
            atomic_write_json(self.path(root), encode_document(document))
