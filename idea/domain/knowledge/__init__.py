"""Knowledge (spec 04): conversation logs and their pages and rotation, handoffs, memory notes, skills, the shared
context, the work panel's read model, front matter, and the knowledge tools' commands and events."""
