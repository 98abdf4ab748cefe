"""Permissions use cases (spec 06): the project policy, per-agent resolution, what a launch applies."""
