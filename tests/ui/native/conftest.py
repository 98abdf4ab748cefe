"""The native terminal cell needs `evp` (libghostty-vt), which has wheels for Python 3.13 and newer only.

Without it these tests are skipped (with the reason), unless IDEA_REQUIRE_NATIVE_TERMINAL=1 (CI) makes that a
failure on Python 3.13 or newer.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import shiboken6
from pytestqt.qtbot import QtBot

from idea.infrastructure.core_loop import CoreLoop
from idea.ui.gui_thread import GuiThread
from tests.ui.test_terminal_adapter import core, on_core  # noqa: F401 - the same core loop and runner

REQUIRE_VARIABLE = "IDEA_REQUIRE_NATIVE_TERMINAL"
_session_numbers = itertools.count(1)


def needs_evp(*, module_level: bool = False) -> None:
    """Skip without evp; fail instead under IDEA_REQUIRE_NATIVE_TERMINAL=1 where evp can be installed. Test
    modules that import the native view call it first (`module_level=True`)."""
    if importlib.util.find_spec("evp") is not None:
        return
    if sys.version_info < (3, 13):
        reason = "the native terminal needs evp, which needs Python 3.13 or newer (./dev prefers python3.13)"
        pytest.skip(reason, allow_module_level=module_level)
    reason = "the native terminal needs evp (pip install evp)"
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        pytest.fail(f"{reason}; {REQUIRE_VARIABLE}=1 requires it", pytrace=False)
    pytest.skip(reason, allow_module_level=module_level)


@pytest.fixture(autouse=True)
def native_terminal_available() -> None:
    needs_evp()


@pytest.fixture
def factory(qtbot: QtBot, core: CoreLoop) -> Iterator[Any]:
    from idea.ui.terminal.appearance import TerminalAppearance
    from idea.ui.terminal.native.session import NativeTerminalFactory

    terminals = NativeTerminalFactory(GuiThread(), core.loop, TerminalAppearance())
    yield terminals
    terminals.close()
    shiboken6.delete(terminals.parking_lot)


def make_terminal(factory: Any) -> Any:
    return factory.create(f"native-{next(_session_numbers)}", "project")
