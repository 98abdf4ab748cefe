"""Agents: composing what an agent is told at launch, and the ports of the stores and writers it needs."""
