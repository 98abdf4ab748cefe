"""What state an agent is in (spec 05): liveness and the stall sweep, why it needs the person, usage limits and
their resumes, the resume offer, the engine session ids its hooks carry, and their events."""
