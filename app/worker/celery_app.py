"""The Celery application (Redis broker, plain or Sentinel): late acks, one task per process, no results, a heartbeat
per worker, models loaded as each pool process starts."""

from __future__ import annotations

from celery import Celery

from app.redis.urls import celery_broker
from app.settings import Settings, get_settings
from app.worker.heartbeat import install_heartbeat
from app.worker.warm_up import install_warm_up


def make_celery(settings: Settings) -> Celery:
    url = settings.redis_url or "redis://127.0.0.1:6379/0"
    # A Sentinel URL becomes kombu's `sentinel://` transport with the service as `master_name`. No result backend
    # (`task_ignore_result`): nothing else of Celery's needs Redis.
    broker, transport_options = celery_broker(url)
    celery = Celery("triage_dispatch", broker=broker, include=["app.worker.tasks"])
    celery.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        broker_transport_options={"visibility_timeout": settings.celery_visibility_timeout_s, **transport_options},
        worker_hijack_root_logger=False,
    )
    install_heartbeat(celery, url, settings.queue_prefix)
    install_warm_up()
    return celery


celery_app = make_celery(get_settings())
