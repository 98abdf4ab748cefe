"""IdeA: manage a team of AI coding agents in a grid of real terminals."""

__version__ = "0.1.0"
