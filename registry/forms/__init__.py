"""Forms, by capability. They validate; services write.

``registry.forms.proposal`` (the GFD.191 template as a form), ``starting`` (a new proposal, a
comment, a reservation request), ``imports`` (a document and its corrections), ``accounts``
(sign-up). The names below are the ones the views use.
"""

from .accounts import SignUpForm
from .imports import ImportDocumentForm, ImportReviewForm
from .proposal import ProposalForm
from .starting import CommentForm, NewProposalForm, ReservationRequestForm

__all__ = [
    "CommentForm",
    "ImportDocumentForm",
    "ImportReviewForm",
    "NewProposalForm",
    "ProposalForm",
    "ReservationRequestForm",
    "SignUpForm",
]
