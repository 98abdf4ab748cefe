"""IdeA: manage a team of AI coding agents in a grid of real terminals."""

from __future__ import annotations

DISTRIBUTION = "idea-ide"  # the name in pyproject.toml, whose version is the one truth


def __getattr__(name: str) -> str:
    # Read lazily: importlib.metadata costs the subcommands agent CLIs start on every turn.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version(DISTRIBUTION)
        except PackageNotFoundError:  # a checkout run without installing it
            found = "0+unknown"
        globals()["__version__"] = found
        return found
    raise AttributeError(f"module 'idea' has no attribute {name!r}")
