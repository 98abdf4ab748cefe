"""Orchestration (spec 03): the commands agents send one another and their outcomes, the rules and limits of an
ask, its events, tickets, the text delivered to a target and the live-state board."""
