"""Usage limits of agents' providers: detection reports, scheduled resumes, the human net (spec 05 §6-§10)."""
