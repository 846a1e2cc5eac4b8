"""Discrete-event simulation of an LLM engine under each scheduling policy (the paper's section 4.1)."""
