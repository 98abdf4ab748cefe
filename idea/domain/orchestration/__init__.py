"""Orchestration (spec 02): the commands agents send one another and their outcomes, the rules and limits of an ask, its
events, tickets, the delivered text and the live-state board."""
