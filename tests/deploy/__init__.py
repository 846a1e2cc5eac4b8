"""Tests that start the compose pilot in a real Docker Engine (opt-in: TRIAGE_PILOT=1, `make pilot`)."""
