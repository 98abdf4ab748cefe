"""`.ideai/permissions.json`, in the original IdeA's format (spec 06 §3).

Unlike IdeA's other stores, a broken permissions file is never moved aside or rewritten on load: it is a
security policy written by a person, and reading it as empty would loosen every agent. It is reported as
unreadable (every agent then refuses to start) until the person fixes it or saves a new policy; a save over a
file that had problems first keeps a copy of it as `permissions.json.before-<epoch ms>`.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from idea.domain.permissions.document import (
    PermissionsReading,
    permissions_to_json,
    read_permissions,
    unreadable_reading,
)
from idea.domain.permissions.model import ProjectPermissions
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_json
from idea.infrastructure.stores.document_file import path_lock

FILE_NAME = "permissions.json"


class JsonPermissionStore:
    def path(self, root: str) -> Path:
        return Path(root) / IDEAI_DIR / FILE_NAME

    def read(self, root: str) -> PermissionsReading:
        path = self.path(root)
        with path_lock(path):
            try:
                raw = path.read_bytes()
            except FileNotFoundError:
                return PermissionsReading(ProjectPermissions())
            except OSError as exc:
                return unreadable_reading(exc.strerror or str(exc))
        try:
            return read_permissions(json.loads(raw.decode("utf-8")))
        except UnicodeDecodeError as exc:
            return unreadable_reading(f"not UTF-8 text: {exc.reason}")
        except json.JSONDecodeError as exc:
            return unreadable_reading(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")

    def save(self, root: str, document: ProjectPermissions) -> str | None:
        """Write the document; returns where the previous file was kept when it had problems."""
        path = self.path(root)
        with path_lock(path):
            kept: str | None = None
            if path.exists() and self.read(root).has_problems:
                copy = path.with_name(f"{FILE_NAME}.before-{int(time.time() * 1000)}")
                shutil.copy2(path, copy)
                kept = str(copy)
            atomic_write_json(path, permissions_to_json(document))
            return kept
