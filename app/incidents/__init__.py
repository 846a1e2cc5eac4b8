"""Incidents: reading them, the pipeline from intake to the heap, dispatcher actions, overrides, overload, EIDO."""
