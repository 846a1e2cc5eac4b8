"""The `triage-dispatch` command line."""
