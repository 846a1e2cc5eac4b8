"""Semantic scheduling core: urgency-first, shortest-remaining-next LLM request scheduling."""
