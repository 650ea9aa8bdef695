"""All writes of the proposals room. Every state change goes through ``proposal_transition``.

Each service runs in one transaction and records what it did in the same
transaction (the append-only ``ProposalEvent``), so the history can never
disagree with the data. Permission predicates come from ``rules``; a service
refuses what its caller may not do even if a view forgot to check.

The services live by capability — proposals (create, edit, the workflow, registration),
reservations, threads (the review's conversation and the editors' judgements) and
editors — and are named here, where the faces and the tests call them
(``services.proposal_transition``).
"""

from ..errors import Conflict, NotAllowed, ServiceError
from ..selectors import namespace_get
from .editors import editor_grant, editor_revoke, editors_group
from .proposals import (
    proposal_create,
    proposal_transition,
    proposal_update,
    submitted_content,
    validator_cost_store,
)
from .reservations import (
    namespace_release,
    namespace_renew,
    namespace_reserve,
    reservation_request_create,
    reservation_request_decide,
)
from .threads import (
    MAX_COMMENT,
    comment_add,
    comment_reply,
    judgement_set,
    judgements_set,
    thread_reopen,
    thread_resolve,
    thread_start,
)

__all__ = [
    "MAX_COMMENT",
    "Conflict",
    "NotAllowed",
    "ServiceError",
    "comment_add",
    "comment_reply",
    "editor_grant",
    "editor_revoke",
    "editors_group",
    "judgement_set",
    "judgements_set",
    "namespace_get",
    "namespace_release",
    "namespace_renew",
    "namespace_reserve",
    "proposal_create",
    "proposal_transition",
    "proposal_update",
    "reservation_request_create",
    "reservation_request_decide",
    "submitted_content",
    "thread_reopen",
    "thread_resolve",
    "thread_start",
    "validator_cost_store",
]
