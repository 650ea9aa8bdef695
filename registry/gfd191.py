"""The GFD.191 §6 registration template, defined once.

Every form, page, export and the required-sections check iterates over
``SECTIONS``; nothing else lists the template. ``kind`` says how a section is
stored: ``prose`` sections are Markdown in ``Proposal.sections`` under their
key; the others are structured fields of the proposal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Part:
    """A numbered heading of the template that groups sections (1 Registration …)."""

    number: str
    title: str

    @property
    def heading(self) -> str:
        return f"{self.number} {self.title}"


@dataclass(frozen=True, slots=True)
class Section:
    number: str
    key: str
    title: str
    guidance: str
    #: Required by GFD.191 §4 ("A GFD that registers a namespace MUST at least include").
    required: bool
    #: prose | snid | version | registrant
    kind: str = "prose"
    #: The structured part kept beside a prose section's text ("" for none): the grammar
    #: of 2.1, the resolvers of 3.2. Forms, pages and exports show it under the section.
    structured: str = ""

    @property
    def part(self) -> str:
        return self.number.split(".")[0]

    @property
    def heading(self) -> str:
        return f"{self.number} {self.title}"


PARTS: tuple[Part, ...] = (
    Part("1", "Registration"),
    Part("2", "Syntax"),
    Part("3", "Services"),
    Part("4", "Namespace Considerations"),
    Part("5", "Community Considerations"),
    Part("6", "Examples"),
    Part("7", "Relevant Ancillary Documentation"),
    Part("8", "Changes from Previous Versions / Prior Usage"),
)

SECTIONS: tuple[Section, ...] = (
    Section(
        "1.1",
        "snid",
        "Namespace Identifier",
        "The subnamespace identifier (SNID) you ask for: what follows urn:ogf:. It lives for "
        "decades, so it MUST NOT contain volatile names such as a working group's (example-wg); "
        "a protocol's name is fine. It MUST NOT start with x- (urn:ogf: is a formal namespace). "
        "Letters, digits and '-', starting with a letter or digit, at most 32 characters.",
        True,
        "snid",
    ),
    Section(
        "1.2",
        "version",
        "Document Version",
        "The registration version: 1 for a new SNID, the previous approved version plus one "
        "for a revision. It only grows with approved GFDs, not with each working draft. The "
        "registration date is the date the registration is approved and published.",
        True,
        "version",
    ),
    Section(
        "1.3",
        "registrant",
        "Declared Registrant",
        "The organisation and/or contact person responsible for the registration, with "
        "postal and e-mail address. It may be omitted in the GFD when the registrant is the "
        "authors, but the registry needs a contact.",
        False,
        "registrant",
    ),
    Section(
        "2.1",
        "syntactic_structure",
        "Syntactic Structure",
        "Describe the structure of every URN of the namespace that is considered valid, now "
        "and in future, and introduce the terms used elsewhere. Give the formal syntax in "
        "ABNF (RFC 5234) below; state the maximum length of a URN (GFD.191 §5 asks for it).",
        True,
        structured="grammar",
    ),
    Section(
        "2.2",
        "reserved_use",
        "Reserved Use",
        "Which valid URNs MAY be assigned now, and which MUST NOT be assigned yet because "
        "they are reserved for future use. Say explicitly whether query (?) or fragment (#) "
        "parts are allowed.",
        False,
    ),
    Section(
        "2.3",
        "encoding",
        "Encoding",
        "Encoding or decoding algorithms, especially where part of a URN maps to an external "
        "naming system. This section MUST say whether percent-escaping is allowed and what the "
        "escaped octets mean, and whether the reserved characters % / ? # are allowed (it is "
        "RECOMMENDED that they are not).",
        False,
    ),
    Section(
        "2.4",
        "lexical_equivalence",
        "Rules for Lexical Equivalence",
        "The algorithm that decides whether two URNs are the same. It MUST keep urn:ogf:, the "
        "SNID and percent-escape hex digits case-insensitive. If Unicode normalisation is used, "
        "name the Unicode version. List a few equivalent URNs; pick the matching executable "
        "rule below so the registry can apply it.",
        True,
    ),
    Section(
        "3.1",
        "validation_mechanism",
        "Validation Mechanism",
        "Optional. How anyone can tell whether a URN is currently assigned, and whether running "
        "validation services is open or delegated. May say how to treat malformed URNs.",
        False,
    ),
    Section(
        "3.2",
        "resolution",
        "Process for Identifier Resolution",
        "Optional. How a URN can be resolved to metadata or locations, whether resolution "
        "services are open or delegated, and how long resolved attributes may be cached. "
        "Declare resolvers below so the registry can send readers of a URN to them: a URL "
        "template with {nss} (the whole string after the SNID) or {RuleName} (what a rule of "
        "the grammar matched) placeholders.",
        False,
        structured="resolvers",
    ),
    Section(
        "4.1",
        "scope",
        "Scope",
        "The kind of resource identified and the intended use. Keep the scope limited, and say "
        "which version of a resource a URN identifies (general, a particular version, or the "
        "current state). The editor judges whether this falls within OGF's scope.",
        True,
    ),
    Section(
        "4.2",
        "uniqueness",
        "Identifier Uniqueness Considerations",
        "How it is ensured that a URN is assigned to at most one resource and never "
        "reassigned, including to different versions of one resource.",
        False,
    ),
    Section(
        "4.3",
        "exposition_of_structure",
        "Exposition of Structure",
        "How URNs should be interpreted beyond their syntax; say which parts are opaque and "
        "what clients may or may not infer from them.",
        False,
    ),
    Section(
        "5.1",
        "identifier_assignment",
        "Process of Identifier Assignment",
        "Who assigns URNs and how: open by algorithm, delegated to recognised authorities, "
        "sequential, or case by case. If assignment is delegated to third parties, explain how "
        "they keep URNs unique and immutable.",
        True,
    ),
    Section(
        "5.2",
        "immutability",
        "Identifier Immutability Considerations",
        "Why URNs of this syntax never need to change, even when organisations rename, domains "
        "change hands or attributes change. Avoid volatile attributes in the syntax; estimate "
        "how long identifiers must stay valid and how that is ensured.",
        True,
    ),
    Section(
        "6",
        "examples",
        "Examples",
        "A few example URNs, valid and invalid, with why the invalid ones are invalid. Enter "
        "them in the lists below as well so the registry can check them against the grammar.",
        False,
    ),
    Section(
        "7",
        "ancillary_documentation",
        "Relevant Ancillary Documentation",
        "Optional. GFDs, RFCs, standards or other documents that define or explain the namespace structure.",
        False,
    ),
    Section(
        "8",
        "changes",
        "Changes from Previous Versions / Prior Usage",
        "Changes from earlier versions of the registration, or earlier (undocumented) use of "
        "the namespace. Optional for a first version.",
        False,
    ),
)

SECTIONS_BY_KEY: dict[str, Section] = {section.key: section for section in SECTIONS}


@dataclass(frozen=True, slots=True)
class Field:
    """A structured field shown under a section, which findings point at by its own key.

    Findings name what they concern by a section key or by one of these (``item.section``;
    an example list as ``examples_<list>``); pages anchor each where its section shows it.
    """

    key: str
    #: The key of the section it belongs to.
    section: str
    #: What it is called after its section's heading ("2.1 Syntactic Structure: ABNF").
    name: str


FIELDS: tuple[Field, ...] = (
    Field("document", "version", "registering document"),
    Field("grammar", "syntactic_structure", "ABNF"),
    Field("max_length", "syntactic_structure", "maximum length"),
    Field("examples_equivalent", "lexical_equivalence", "equivalent URNs"),
    Field("examples_valid", "examples", "valid examples"),
    Field("examples_invalid", "examples", "invalid examples"),
    # The registrant's details and the resolvers: what a steward may change after approval
    # (registry.stewardship.changes), named as the template names them.
    Field("registrant_name", "registrant", "contact person"),
    Field("registrant_organisation", "registrant", "organisation"),
    Field("registrant_email", "registrant", "e-mail"),
    Field("registrant_address", "registrant", "postal address"),
    Field("registrant_public_contact", "registrant", "public contact"),
    Field("resolvers", "resolution", "resolvers"),
)
FIELDS_BY_KEY: dict[str, Field] = {field.key: field for field in FIELDS}
#: What every page calls the text of an imported document that fits no section (not a
#: section of the template: it must be emptied before the proposal can be submitted).
UNPLACED_LABEL = "Unplaced text from the imported document"


def section_of(key: str) -> Section | None:
    """The section a section key or a field key (``FIELDS``) belongs to; None for others."""
    field = FIELDS_BY_KEY.get(key)
    return SECTIONS_BY_KEY.get(field.section if field else key)


def place_name(key: str) -> str:
    """What pages call the place a finding points at: a section's heading ("4.1 Scope"), a
    field under its section's heading ("2.1 Syntactic Structure: ABNF"), or the unplaced
    text; "" for a key that names none of them."""
    if key == "unplaced":
        return UNPLACED_LABEL
    section, field = section_of(key), FIELDS_BY_KEY.get(key)
    if section is None:
        return ""
    return f"{section.heading}: {field.name}" if field else section.heading


PROSE_KEYS: tuple[str, ...] = tuple(s.key for s in SECTIONS if s.kind == "prose")
REQUIRED_SECTIONS: tuple[Section, ...] = tuple(s for s in SECTIONS if s.required)


def sections_by_part() -> list[tuple[Part, list[Section]]]:
    return [(part, [s for s in SECTIONS if s.part == part.number]) for part in PARTS]
