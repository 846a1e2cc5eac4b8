"""Dispatcher guidance: the versioned prompt, the protocol card library, overload templates and the checker."""
