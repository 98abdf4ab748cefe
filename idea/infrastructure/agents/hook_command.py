"""The command line agent CLIs run for the hook relay, as cheap as this installation allows.

From a Python installation (a checkout, a virtual environment, a wheel) the relay runs as
`<python> -I -S -c "<import relay from its folder, run it>"`: isolated (no user site, no `PYTHON*`
variables), without the `site` module and without importing the `idea` package; the relay module comes from
its cached bytecode (a script given by path would be compiled at every start). An event then costs little
more than starting the interpreter. A frozen build or an AppImage has no separate interpreter: there it is
`<idea> hook`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

from idea.infrastructure.agents.executable import idea_command
from idea.infrastructure.hooks import relay

HOOK_SUBCOMMAND = "hook"


def hook_relay_command(environ: Mapping[str, str] | None = None) -> list[str]:
    """The argv prefix before the relay's options."""
    env = os.environ if environ is None else environ
    script = os.path.abspath(relay.__file__)
    frozen = getattr(sys, "frozen", False) or bool(env.get("APPIMAGE"))
    if not frozen and sys.executable and os.path.isfile(script) and script.endswith(".py"):
        folder, module = os.path.split(script[: -len(".py")])
        code = (
            f"import sys;sys.path[:0]=[{json.dumps(folder)}];"
            f"import {module};sys.exit({module}.run_hook(sys.argv[1:]))"
        )
        return [sys.executable, "-I", "-S", "-c", code]
    return [*idea_command(env), HOOK_SUBCOMMAND]
