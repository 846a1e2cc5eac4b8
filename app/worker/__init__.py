"""Celery workers: classification of stored messages."""
