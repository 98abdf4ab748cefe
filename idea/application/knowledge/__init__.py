"""A project's shared knowledge: memory notes and their harvest, skills, the shared context and its
proposals, the six knowledge tools, and the work panel's read model (spec 04 §11-§15)."""
