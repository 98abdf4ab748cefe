"""Usage-limit detection: the reset-time parser and the profile-pattern detector on terminal output
(spec 05 §6-§7)."""
