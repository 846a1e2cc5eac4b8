"""The engine worker: serves incidents from the Redis heap with the LLM engine (loop, outcomes, engine factory)."""
