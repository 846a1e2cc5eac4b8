"""The triage-dispatch application: command line, web server, workers."""
