"""Dispatcher guidance: the versioned prompt that turns a call message into guidance for the dispatcher."""
