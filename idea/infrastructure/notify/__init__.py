"""Desktop notifications on the platform's notification service."""
