"""What each public change of the registry puts in the log, built from the models.

The services call these inside the change's own transaction (registry.services for
approvals and reservations, the ``expire_reservations`` command for expiries); a new
kind of change (an administrative change, a deprecation) adds a kind in ``kinds`` and a
function here.
"""

from __future__ import annotations

from .. import interchange
from ..logcore.kinds import RESERVATION_ENDED, RESERVATION_GRANTED, SNID_VERSION, sha256_hex
from .log import log_append
from .models import LogEntry


def version_record(proposal) -> dict:
    """The public record of an approved version, as registry.json shows it (without the derived
    page URL and pattern). ``proposal.namespace`` gives the SNID's registered spelling."""
    public = proposal.registrant_public()
    date = proposal.registration_date
    return {
        "snid": proposal.namespace.snid if proposal.namespace_id else proposal.snid,
        "version": proposal.version,
        "registration_date": date.isoformat() if date else None,
        "title": proposal.title,
        "document": {
            "reference": proposal.document_reference,
            "url": proposal.document_url,
            "status": proposal.document_status,
            "type": proposal.document_type,
        },
        "registrant": {key: public[key] for key in ("name", "organisation", "email", "contact")},
        "grammar": {"abnf": proposal.grammar_abnf, "rule": proposal.grammar_rule},
        "examples": {"valid": list(proposal.examples_valid), "invalid": list(proposal.examples_invalid)},
        "equivalence": list(proposal.equivalence),
        "max_length": proposal.max_length,
    }


def log_version_registered(proposal) -> LogEntry:
    """An approved version: its public record and the digest of its whole registration document."""
    record = version_record(proposal)
    fields = {
        "snid": record["snid"],
        "version": record["version"],
        "record": record,
        "record_sha256": sha256_hex(record),
        "document_sha256": sha256_hex(interchange.dump(proposal.to_data())),
    }
    if proposal.overridden:  # approved over the review's rule: what, and the editor's reason
        fields["approval"] = {
            "overridden": [b.get("sentence", b.get("check", ""))[:1000] for b in proposal.overridden],
            "override_reason": proposal.override_reason,
            "override_sha256": sha256_hex(proposal.override_reason),
        }
    return log_append(SNID_VERSION.name, fields)


def log_reservation_granted(namespace, *, renewal: bool) -> LogEntry:
    until = namespace.reserved_until
    return log_append(
        RESERVATION_GRANTED.name,
        {"snid": namespace.snid, "reserved_until": until.isoformat() if until else None, "renewal": renewal},
    )


def log_reservation_ended(namespace, until, *, how: str, released_on=None, released_by: str = "") -> LogEntry:
    fields = {"snid": namespace.snid, "reserved_until": until.isoformat() if until else None, "how": how}
    if released_on is not None:
        fields["released_on"] = released_on.isoformat()
    if released_by:
        fields["released_by"] = released_by
    return log_append(RESERVATION_ENDED.name, fields)
