"""SML's Python client: signed REST calls, pandas conveniences, scikit-learn-style estimators."""
from .client import Response, SmlClient
from .errors import (AuthError, InvalidRequestError, JobFailedError, NotFoundError, SmlError,
                     UnavailableError, UnexpectedResponseError)
from .estimator import SmlClassifier, SmlRegressor

__all__ = ["SmlClient", "Response", "SmlError", "AuthError", "NotFoundError", "InvalidRequestError",
           "UnavailableError", "JobFailedError", "UnexpectedResponseError", "SmlRegressor", "SmlClassifier"]
