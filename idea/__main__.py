"""`idea` and `python -m idea`: dispatch on the first argument before anything imports Qt, so the
subcommands that agent CLIs spawn (bridge, hook relay) start fast and run without a display."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else ""
    if command in ("--version", "-V"):
        from idea import __version__

        print(f"IdeA {__version__}")
        return 0
    if command == "mcp-server":
        from idea.infrastructure.mcp.bridge import run_bridge

        return run_bridge(args[1:])
    if command == "hook":
        from idea.infrastructure.hooks.relay import run_hook

        return run_hook(args[1:])
    if command == "sandbox-exec":
        from idea.infrastructure.sandbox.exec_wrapper import run_sandbox_exec

        return run_sandbox_exec(args[1:])
    if command == "doctor":
        from idea.ui.doctor import run_doctor

        return run_doctor(args[1:])
    from idea.ui.app import run_gui

    return run_gui(args)


if __name__ == "__main__":
    sys.exit(main())
