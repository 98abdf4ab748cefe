"""The Git panel, the diff viewer and diff reviews (spec 07 §1–3)."""
