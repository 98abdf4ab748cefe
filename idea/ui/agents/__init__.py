"""The agent-management screens: the Agents panel, its dialogs, the profile settings and the first-run wizard."""
