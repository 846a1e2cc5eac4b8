"""LLM engines driven by the semantic scheduler: one async interface, implementations chosen by name."""
