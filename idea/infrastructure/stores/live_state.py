"""`.ideai/live-state.json` (spec 03 §10.1): written atomically, optional fields as explicit nulls, a broken
file moved aside (`live-state.json.corrupt-<ms>`) rather than overwritten.

Written on the core loop behind the board's rows (at most one write per burst, `LiveBoard`), without fsync
(still atomic: the old or the new document, never a mix): a crash or a power cut may lose the last rows,
which the reconciliation at the next open treats as stale anyway (§10.4), while an fsync pair would hold the
loop about 10 ms per write."""

from __future__ import annotations

from pathlib import Path

from idea.domain.orchestration.live_state import LiveState
from idea.domain.project import IDEAI_DIR
from idea.infrastructure.fs import atomic_write_json, quarantine, read_json
from idea.infrastructure.stores.document_file import path_lock

FILE_NAME = "live-state.json"


class JsonLiveStateStore:
    def __init__(self, project_root: str) -> None:
        self.path = Path(project_root) / IDEAI_DIR / FILE_NAME

    def load(self) -> LiveState:
        """Empty when the file does not exist; CorruptFileError (file kept aside) when it cannot be read."""
        with path_lock(self.path):
            data = read_json(self.path)
            if data is None:
                return LiveState()
            try:
                return LiveState.from_json(data)
            except (TypeError, ValueError) as exc:
                raise quarantine(self.path, str(exc)) from exc

    def save(self, state: LiveState) -> None:
        with path_lock(self.path):
            atomic_write_json(self.path, state.to_json(), durable=False)
