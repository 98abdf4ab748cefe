"""NativeTerminal over a POSIX PTY: the terminal contract every cell passes, plus what the native cell adds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from idea.infrastructure.core_loop import CoreLoop
from tests.contract.terminal_contract import CONTRACT_CASES, ContractCase, case_name
from tests.ui.native.conftest import make_terminal, on_core


@pytest.mark.parametrize("case", CONTRACT_CASES, ids=case_name)
def test_contract(case: ContractCase, factory: Any, core: CoreLoop, qtbot: QtBot, tmp_path: Path) -> None:
    on_core(qtbot, core, case(lambda: make_terminal(factory), tmp_path))
