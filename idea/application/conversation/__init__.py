"""Conversations: recording turns with their handoff, paginated reading, rotation (spec 04 §2-§8)."""
