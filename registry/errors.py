"""The errors a service raises: a refused write, with a message for the person who asked.

Every room's services raise these (the proposals', stewardship's, resolution's), and the
faces turn them into answers (403, 409, a form error): defined once, below all of them.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A refused write, with a message meant for the person who asked for it."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotAllowed(ServiceError):
    """The actor may not do this (maps to 403)."""


class Conflict(ServiceError):
    """The proposal is not in a state that allows this (maps to 409), e.g. already decided."""


class SeenChanged(Conflict):
    """What a decision rests on is not what its confirmation page showed (maps to 409: the page again)."""
