"""The hook relay: the subcommand agent CLIs run on lifecycle events to tell IdeA about them."""
