"""Triage models: ESI level and answer-length estimates for incoming messages."""
