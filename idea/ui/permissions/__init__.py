"""The Permissions panel (spec 06 §10)."""
