"""Typed exceptions carrying SML's envelope (statusCode, statusString, values)."""
from typing import Any, Dict, Optional


class SmlError(Exception):
    """An answer outside 2xx: the HTTP status, the envelope's message and the whole envelope."""

    def __init__(self, status: int, message: str, envelope: Optional[Dict[str, Any]] = None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.envelope = envelope or {}


class AuthError(SmlError):
    """401/403: bad credentials or signature."""


class NotFoundError(SmlError):
    """404: no such project, model, job …"""


class InvalidRequestError(SmlError):
    """400/409/413/422: the request was refused as it is."""


class UnavailableError(SmlError):
    """503 still answered after the client's retries."""


class JobFailedError(SmlError):
    """A job ended in failure; the status and message are the job's."""


class UnexpectedResponseError(SmlError):
    """The gateway answered something that is not an envelope."""


_BY_STATUS = {401: AuthError, 403: AuthError, 404: NotFoundError, 400: InvalidRequestError,
              409: InvalidRequestError, 413: InvalidRequestError, 422: InvalidRequestError, 503: UnavailableError}


def error_for(status: int, envelope: Dict[str, Any]) -> SmlError:
    """The exception class for a status (SmlError for the others)."""
    return _BY_STATUS.get(status, SmlError)(status, str(envelope.get("statusString", "")), envelope)
