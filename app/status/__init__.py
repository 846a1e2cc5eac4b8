"""What operators read: the engine workers' status, readiness checks and the metrics."""
