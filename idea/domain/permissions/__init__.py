"""Permissions (spec 06): the model and its decisions, `permissions.json`, the CLI projections, the sandbox plan, the
honesty summary and what the Permissions panel shows."""
