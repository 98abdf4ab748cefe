"""A project's beacons, marked with it: what its services write to the diagnostics log ends with
`project=<8 hex>` (`domain/diagnostics_log.py`), so Help ▸ Diagnostics can show one project's lines."""

from __future__ import annotations

from idea.application.ports import Diagnostics
from idea.domain.diagnostics_log import project_mark


class ProjectBeacons:
    def __init__(self, sink: Diagnostics, project_id: str) -> None:
        self._sink = sink
        self._mark = " " + project_mark(project_id)

    def beacon(self, message: str) -> None:
        self._sink.beacon(message + self._mark)
