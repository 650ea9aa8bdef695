"""Checks of part 1, Registration (and what an import left over): the SNID, version, document, registrant."""

from __future__ import annotations

import re2

from ..gfd191 import REQUIRED_SECTIONS, UNPLACED_LABEL
from ..grammar import snid_error
from .core import DRAFT, EDITOR, FAIL, NOT_RUN, PASS, WARNING, Context, Finding, _one, check, progress

# --- 0 What an import left over ------------------------------------------------------------

_SOURCE_LINES = re2.compile(r"\(source lines? ([0-9]+(?:–[0-9]+)?)\)")


def unplaced_source_lines(text: str) -> list[str]:
    """The source line ranges the importer noted in unplaced text ("12–30")."""
    return [m.group(1) for m in _SOURCE_LINES.finditer(text)]


@check("unplaced-text", title="Unplaced imported text", reference="GFD.191 §6", item={"section": "unplaced"})
def unplaced_text(ctx: Context):
    """Imported text that fits no section is neither dropped nor silently filed under section 8."""
    text = ctx.data.unplaced.strip()
    if not text:
        return []
    lines = unplaced_source_lines(text)
    where = f" (source lines {', '.join(lines)})" if lines else ""
    return _one(
        "unplaced-text",
        WARNING,
        f"“{UNPLACED_LABEL}” still holds {len(text):,} characters{where}: move what belongs to a "
        "section into it and delete the rest. The proposal cannot be submitted until it is empty.",
        "GFD.191 §6",
        {"section": "unplaced"},
    )


# --- 1 Registration ------------------------------------------------------------------------


@check("snid-syntax", title="SNID syntax")
def snid_syntax(ctx: Context):
    problem = snid_error(ctx.data.snid)
    if problem:
        return _one("snid-syntax", FAIL, problem, "RFC 6453 §2.4", {"section": "snid"})
    return _one(
        "snid-syntax",
        PASS,
        f"'{ctx.data.snid}' is a well-formed SNID (checked its {len(ctx.data.snid)} characters).",
        "RFC 6453 §2.4",
        {"section": "snid"},
    )


@check(
    "snid-not-experimental",
    title="SNID not experimental",
    needs=("written:snid",),
    reference="GFD.191 §6 (1.1)",
    item={"section": "snid"},
)
def snid_not_experimental(ctx: Context):
    if not ctx.data.snid.strip():
        return _one(
            "snid-not-experimental", WARNING, "There is no SNID to check yet.", "GFD.191 §6 (1.1)", {"section": "snid"}
        )
    if ctx.data.snid.lower().startswith("x-"):
        return _one(
            "snid-not-experimental",
            FAIL,
            "urn:ogf: is a formal namespace: an SNID must not start with 'x-'.",
            "GFD.191 §6 (1.1)",
            {"section": "snid"},
        )
    return _one(
        "snid-not-experimental",
        PASS,
        f"The SNID '{ctx.data.snid}' does not start with 'x-'.",
        "GFD.191 §6 (1.1)",
        {"section": "snid"},
    )


@check(
    "snid-unique",
    title="SNID free to register",
    needs=("snid",),
    reference="GFD.191 §4, RFC 6453 §2.4",
    item={"section": "snid"},
)
def snid_unique(ctx: Context):
    facts, ref, item = ctx.facts, "GFD.191 §4, RFC 6453 §2.4", {"section": "snid"}
    if facts.deprecated:
        return _one(
            "snid-unique",
            FAIL,
            f"urn:ogf:{ctx.data.snid}: is deprecated; a deprecated SNID is never reassigned or "
            "registered again, not even as a new version. Choose another SNID.",
            ref,
            item,
        )
    if facts.registered and not facts.submitter_known:
        return _one(
            "snid-unique",
            WARNING,
            f"urn:ogf:{ctx.data.snid}: is already registered (latest version "
            f"{facts.latest_version}). Only its registrant may propose a new version; "
            "no submitter was given, so this could not be checked (use --submitter).",
            ref,
            item,
        )
    if facts.registered and not facts.own_namespace:
        return _one(
            "snid-unique",
            FAIL,
            f"urn:ogf:{ctx.data.snid}: is already registered to someone else (SNIDs are "
            "compared case-insensitively). Choose another SNID.",
            ref,
            item,
        )
    if facts.reserved and not facts.reserved_for_applicant:
        return _one(
            "snid-unique",
            FAIL,
            f"urn:ogf:{ctx.data.snid}: is reserved for someone else until {facts.reserved_until}. Choose another SNID.",
            ref,
            item,
        )
    if facts.registered:
        return _one("snid-unique", PASS, "This is a new version of an SNID you are a steward of.", ref, item)
    if facts.reserved:
        return _one("snid-unique", PASS, f"The SNID is reserved for you until {facts.reserved_until}.", ref, item)
    return _one(
        "snid-unique",
        PASS,
        f"No registered or reserved SNID is '{ctx.data.snid}' (compared case-insensitively).",
        ref,
        item,
    )


# Applicant text is untrusted: like URNs, it only ever meets RE2 (linear time).
_VOLATILE = [
    (re2.compile(r"(?i)(^|-)(wg|rg|cg|bof)(-|$)|wg$"), "a working/research group name"),
    (re2.compile(r"(19|20)\d\d"), "a year"),
    (re2.compile(r"(?i)(^|-)v?\d+(\.\d+)+$|(^|-)v\d+$"), "a version number"),
    (re2.compile(r"(?i)(^|-)(inc|ltd|corp|gmbh|llc|univ|university|institute|lab)(-|$)"), "an organisation's name"),
]
_GFD_NUMBER = re2.compile(r"(?i)\bGFD[.\- ]?\d+")


@check(
    "snid-durable", title="SNID durable", needs=("snid",), reference="GFD.191 §5, §6 (1.1)", item={"section": "snid"}
)
def snid_durable(ctx: Context):
    snid, ref, item = ctx.data.snid, "GFD.191 §5, §6 (1.1)", {"section": "snid"}
    found = [what for pattern, what in _VOLATILE if pattern.search(snid)]
    if found:
        return _one(
            "snid-durable",
            WARNING,
            f"The SNID seems to contain {' and '.join(found)}, which may not last. Does "
            "it still make sense in 10 years, when the group is disbanded?",
            ref,
            item,
        )
    return _one(
        "snid-durable",
        EDITOR,
        "Does the SNID still make sense in 10 years, if the working group is disbanded? "
        "(A protocol's name is fine; a group's or organisation's name is not.)",
        ref,
        item,
    )


@check("required-sections", title="Required sections written")
def required_sections(ctx: Context):
    if ctx.stage == DRAFT:
        done = progress(ctx.data)
        if done["missing_required"]:
            # Unwritten is not failed: a draft is work in progress until it is submitted.
            return _one(
                "required-sections",
                NOT_RUN,
                f"To do: {done['written']} of {done['total']} sections written; still to write "
                f"before you submit: {', '.join(done['missing_required'])}.",
                "GFD.191 §4",
                {"section": next(s.key for s in REQUIRED_SECTIONS if s.heading == done["missing_required"][0])},
            )
    findings = []
    for section in REQUIRED_SECTIONS:
        present = {"snid": bool(ctx.data.snid.strip()), "version": ctx.data.version >= 1}.get(
            section.key, bool(ctx.section(section.key))
        )
        if not present:
            findings.append(
                Finding(
                    "required-sections",
                    FAIL,
                    f"Section {section.heading} is required by GFD.191 §4 and is empty.",
                    "GFD.191 §4",
                    {"section": section.key},
                )
            )
    if not findings:
        findings.append(
            Finding(
                "required-sections",
                PASS,
                f"All {len(REQUIRED_SECTIONS)} sections GFD.191 §4 requires are present.",
                "GFD.191 §4",
            )
        )
    return findings


@check(
    "version",
    title="Version follows the SNID's history",
    needs=("snid-available",),
    reference="GFD.191 §6 (1.2)",
    item={"section": "version"},
)
def version(ctx: Context):
    expected = (ctx.facts.latest_version or 0) + 1
    item = {"section": "version"}
    if ctx.data.version != expected:
        why = (
            f"the latest approved version is {ctx.facts.latest_version}"
            if ctx.facts.latest_version
            else "this would be a new SNID"
        )
        return _one(
            "version",
            FAIL,
            f"The version should be {expected} ({why}), not {ctx.data.version}.",
            "GFD.191 §6 (1.2)",
            item,
        )
    return _one(
        "version",
        PASS,
        f"Version {expected} follows the registry's history (latest approved version: "
        f"{ctx.facts.latest_version or 'none'}).",
        "GFD.191 §6 (1.2)",
        item,
    )


@check(
    "document",
    title="Registering document",
    needs=("written:document",),
    reference="GFD.191 §4",
    item={"section": "document"},
)
def document(ctx: Context):
    doc, ref, item = ctx.data.document, "GFD.191 §4", {"section": "document"}
    if not doc.reference.strip():
        return _one(
            "document",
            FAIL,
            "Name the grid working document or GFD that registers the SNID (e.g. GFD.202 "
            "or a draft's title): the application is made by publishing a GFD.",
            ref,
            item,
        )
    findings = []
    if not _GFD_NUMBER.search(doc.reference) and doc.status == "published":
        findings.append(
            Finding(
                "document",
                WARNING,
                f"'{doc.reference}' is marked published but is not a GFD number; SNIDs are registered by GFDs.",
                ref,
                item,
            )
        )
    if not doc.type:
        findings.append(
            Finding(
                "document",
                WARNING,
                "Give the GFD type of the registering document: GFD.191 §4 says it "
                "SHOULD be an Informational document.",
                ref,
                item,
            )
        )
    elif doc.type != "Informational":
        findings.append(
            Finding(
                "document",
                WARNING,
                f"The registering document's GFD type is {doc.type}; GFD.191 §4 says "
                "it SHOULD be Informational. Say why in the proposal, or publish it "
                "as Informational.",
                ref,
                item,
            )
        )
    if not findings:
        findings.append(
            Finding(
                "document",
                PASS,
                f"The registration is documented in {doc.reference}, an Informational document.",
                ref,
                item,
            )
        )
    return findings


@check(
    "registrant",
    title="Registrant given",
    needs=("written:registrant",),
    reference="GFD.191 §6 (1.3)",
    item={"section": "registrant"},
)
def registrant(ctx: Context):
    reg, ref, item = ctx.data.registrant, "GFD.191 §6 (1.3)", {"section": "registrant"}
    if not (reg.name.strip() or reg.organisation.strip()):
        return _one(
            "registrant",
            FAIL,
            "Give the name of the organisation or person responsible for the registration.",
            ref,
            item,
        )
    if not reg.email.strip() and not reg.address.strip():
        return _one("registrant", WARNING, "Give an e-mail or postal address for the registrant.", ref, item)
    return _one("registrant", PASS, "A registrant with contact details is declared.", ref, item)
