"""`.ideai/layouts.json`, in the original IdeA's format."""

from __future__ import annotations

import uuid
from pathlib import Path

from idea.domain.layout import DecodedDocument, InvalidLayoutError, LayoutDocument, decode_document, encode_document
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_json, quarantine, read_json
from idea.infrastructure.stores.document_file import path_lock

FILE_NAME = "layouts.json"


class JsonLayoutStore:
    @staticmethod
    def path(root: str) -> Path:
        return Path(root) / IDEAI_DIR / FILE_NAME

    def load(self, root: str) -> DecodedDocument | None:
        path = self.path(root)
        with path_lock(path):
            data = read_json(path)
            if data is None:
                return None
            try:
                return decode_document(data, new_id=lambda: str(uuid.uuid4()))
            except InvalidLayoutError as exc:
                raise quarantine(path, exc.message) from exc

    def save(self, root: str, document: LayoutDocument) -> None:
        path = self.path(root)
        with path_lock(path):
            atomic_write_json(path, encode_document(document))
