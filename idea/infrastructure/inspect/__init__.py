"""Read-only probes of what agent CLIs leave on disk and of their processes (spec 05 §4)."""
