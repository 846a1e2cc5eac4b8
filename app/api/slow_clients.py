"""A deadline for a request's head: uvicorn waits for ever on a connection that sends its headers slowly, or nothing."""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol


class HeadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, with the request head (request line and headers) due within `head_timeout_s` of the
    connection opening, or of the first byte of the next request on a kept-alive connection; past it the connection
    is closed. (uvicorn has a keep-alive timeout between requests, none while a head is arriving; the body has its
    own deadline in `app.api.limits`.)"""

    head_timeout_s: float = 10.0
    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def _awaiting_head(self) -> bool:
        """No request in progress: the next one's head has not fully arrived."""
        return self.cycle is None or self.cycle.response_complete

    def _watch_head(self) -> None:
        if not self._awaiting_head():
            self._cancel_head_deadline()
        elif self._head_deadline is None and not self.transport.is_closing():
            self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_timed_out(self) -> None:
        self._head_deadline = None
        if self._awaiting_head() and not self.transport.is_closing():
            self.logger.info("closing a connection whose request head took over %.0f s", self.head_timeout_s)
            self.transport.close()


def head_deadline_protocol(head_timeout_s: float) -> type[HeadDeadlineProtocol]:
    """The protocol class uvicorn builds per connection, with this deadline."""
    return type("HeadDeadlineProtocol", (HeadDeadlineProtocol,), {"head_timeout_s": head_timeout_s})
