"""The JSON interchange format of one proposal (docs/proposal-format.md).

``load`` turns untrusted JSON data into a ``ProposalData`` or raises
``InterchangeError`` listing every problem with the key it concerns;
``dump`` is its inverse. Services and the import/export commands, the API
and the document exporter all use these two functions.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import asdict, dataclass, field

from .enums import DocumentStatus, DocumentType
from .gfd191 import PROSE_KEYS
from .grammar import EQUIVALENCE_STEPS
from .resolving.templates import RESOLVERS_MAX, resolvers_errors

FORMAT = "urn-ogf-proposal/1"

#: Limits that keep one proposal a reasonable size; each error names the limit.
MAX_TEXT = 100_000  # a prose section or the grammar
MAX_LINE = 1_000  # a one-line field
MAX_EXAMPLES = 1_000
MAX_EXAMPLE_LENGTH = 4_096
MAX_VERSION = 100_000
#: All URNs of one example list together (valid, invalid, or the equivalence groups).
MAX_EXAMPLES_CHARS = 200_000
#: Equivalence groups, and URNs in one group.
MAX_EQUIVALENT_GROUPS = 200
MAX_GROUP_URNS = 20
#: The whole proposal: every text of it together (a real one is under 50,000).
MAX_PROPOSAL_CHARS = 1_000_000

#: GFD document types (GFD.152); a registration is usually Informational.
DOCUMENT_TYPES = ("Informational", "Experimental", "Community Practice", "Recommendation")


class InterchangeError(ValueError):
    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


#: Registrant details an applicant may choose to publish; the rest stay visible to editors only.
PUBLISHABLE = ("name", "organisation", "email", "address")


def default_published() -> list[str]:
    """An organisation is not a personal detail; a person's name, e-mail and address are."""
    return ["organisation"]


@dataclass(slots=True)
class Registrant:
    name: str = ""
    organisation: str = ""
    email: str = ""
    address: str = ""
    #: The contact shown publicly (a role address such as urn-registry@example.org is encouraged).
    public_contact: str = ""
    #: Which of the details above are public (a subset of PUBLISHABLE).
    published: list[str] = field(default_factory=default_published)


@dataclass(slots=True)
class Document:
    reference: str = ""
    url: str = ""
    status: str = ""
    #: The GFD type (DocumentType): Informational, Experimental, Community Practice, Recommendation.
    type: str = ""


@dataclass(slots=True)
class Grammar:
    abnf: str = ""
    rule: str = ""


@dataclass(slots=True)
class Examples:
    valid: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    equivalent: list[list[str]] = field(default_factory=list)


@dataclass(slots=True)
class ProposalData:
    snid: str
    title: str = ""
    version: int = 1
    registration_date: dt.date | None = None
    registrant: Registrant = field(default_factory=Registrant)
    document: Document = field(default_factory=Document)
    sections: dict[str, str] = field(default_factory=dict)
    grammar: Grammar = field(default_factory=Grammar)
    examples: Examples = field(default_factory=Examples)
    equivalence: list[str] = field(default_factory=list)
    max_length: int | None = None
    #: Section 3.2's resolvers: {name, template, returns, media_types, primary} each.
    resolvers: list[dict] = field(default_factory=list)
    #: Text of an imported document that matched no template section, kept apart (with its
    #: source lines) for the applicant to move into its sections or delete before submitting.
    unplaced: str = ""


_TOP_KEYS = {
    "format",
    "snid",
    "title",
    "version",
    "registration_date",
    "registrant",
    "document",
    "sections",
    "grammar",
    "examples",
    "equivalence",
    "max_length",
    "resolvers",
    "unplaced",
}
_RESOLVER_KEYS = {"name", "template", "returns", "media_types", "primary"}


class _Reader:
    def __init__(self):
        self.errors: list[str] = []

    def fail(self, key: str, message: str) -> None:
        self.errors.append(f"{key}: {message}")

    def text(self, obj: dict, key: str, path: str, limit: int = MAX_LINE, default: str = "") -> str:
        value = obj.get(key, default)
        if not isinstance(value, str):
            self.fail(path, f"must be a string, not {_type_name(value)}.")
            return default
        if "\x00" in value:
            self.fail(path, "must not contain NUL characters.")
            return default
        if len(value) > limit:
            self.fail(path, f"is {len(value):,} characters long; the limit is {limit:,}.")
            return default
        return value

    def obj(self, data: dict, key: str, allowed: set[str]) -> dict:
        value = data.get(key, {})
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(key, f"must be an object, not {_type_name(value)}.")
            return {}
        for unknown in sorted(set(value) - allowed):
            self.fail(f"{key}.{unknown}", f"is not a known key (expected one of: {', '.join(sorted(allowed))}).")
        return value

    def strings(self, value, path: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(path, f"must be a list of strings, not {_type_name(value)}.")
            return []
        if len(value) > MAX_EXAMPLES:
            self.fail(path, f"has {len(value):,} entries; the limit is {MAX_EXAMPLES:,}.")
            return []
        out = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                self.fail(f"{path}[{index}]", f"must be a string, not {_type_name(item)}.")
            elif len(item) > MAX_EXAMPLE_LENGTH:
                self.fail(f"{path}[{index}]", f"is {len(item):,} characters long; the limit is {MAX_EXAMPLE_LENGTH:,}.")
            elif "\x00" in item:
                self.fail(f"{path}[{index}]", "must not contain NUL characters.")
            else:
                out.append(item.strip())
        return out


_TYPES = {value.lower(): value for value in DocumentType.values}


def document_type(r: _Reader, value: str) -> str:
    """The GFD type, spelled as GFD.152 does (any letter case accepted), or an error listing them."""
    if not value.strip():
        return ""
    known = _TYPES.get(" ".join(value.split()).lower())
    if known is None:
        r.fail(
            "document.type",
            f"{value[:60]!r} is not a GFD type; use one of {', '.join(DocumentType.values)} (or leave it empty).",
        )
        return ""
    return known


def _type_name(value) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def load(data) -> ProposalData:
    """Validate interchange JSON data (already decoded) into a ProposalData."""
    if not isinstance(data, dict):
        raise InterchangeError([f"(top level): must be a JSON object, not {_type_name(data)}."])
    r = _Reader()
    for unknown in sorted(set(data) - _TOP_KEYS):
        r.fail(unknown, f"is not a known key (expected one of: {', '.join(sorted(_TOP_KEYS))}).")
    if "format" in data and data["format"] != FORMAT:
        r.fail("format", f"must be {FORMAT!r} if given.")
    if "snid" not in data:
        r.fail("snid", "is required.")
    snid = r.text(data, "snid", "snid", limit=64).strip()
    title = r.text(data, "title", "title").strip()

    version = data.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAX_VERSION:
        r.fail("version", f"must be a whole number from 1 to {MAX_VERSION:,}.")
        version = 1

    registration_date = None
    raw_date = data.get("registration_date")
    if raw_date is not None:
        if not isinstance(raw_date, str):
            r.fail("registration_date", "must be an ISO date (YYYY-MM-DD) or null.")
        else:
            try:
                registration_date = dt.date.fromisoformat(raw_date)
            except ValueError:
                r.fail("registration_date", f"{raw_date[:40]!r} is not an ISO date (YYYY-MM-DD).")

    reg = r.obj(data, "registrant", {*PUBLISHABLE, "public_contact", "published"})
    published = r.strings(reg.get("published", default_published()), "registrant.published")
    for item in published:
        if item not in PUBLISHABLE:
            r.fail(
                "registrant.published", f"{item[:40]!r} is not a registrant detail (one of: {', '.join(PUBLISHABLE)})."
            )
    registrant = Registrant(
        name=r.text(reg, "name", "registrant.name"),
        organisation=r.text(reg, "organisation", "registrant.organisation"),
        email=r.text(reg, "email", "registrant.email"),
        address=r.text(reg, "address", "registrant.address", limit=MAX_LINE * 4),
        public_contact=r.text(reg, "public_contact", "registrant.public_contact").strip(),
        published=[item for item in PUBLISHABLE if item in published],
    )

    doc = r.obj(data, "document", {"reference", "url", "status", "type"})
    document = Document(
        reference=r.text(doc, "reference", "document.reference"),
        url=r.text(doc, "url", "document.url"),
        status=r.text(doc, "status", "document.status"),
        type=document_type(r, r.text(doc, "type", "document.type")),
    )
    if document.type and document.type not in DOCUMENT_TYPES:
        r.fail("document.type", f"must be one of {', '.join(DOCUMENT_TYPES)} (or empty).")
    if document.status and document.status not in DocumentStatus.values:
        types = (
            f" ({document.status!r} is a document type: put it in document.type)"
            if (document.status.strip().lower() in _TYPES)
            else ""
        )
        r.fail("document.status", f"must be one of {', '.join(DocumentStatus.values)} (or empty){types}.")
    if document.url and not document.url.startswith(("https://", "http://")):
        r.fail("document.url", "must be an http:// or https:// address.")

    raw_sections = r.obj(data, "sections", set(PROSE_KEYS))
    sections = {}
    for key in PROSE_KEYS:
        if key in raw_sections:
            value = r.text(raw_sections, key, f"sections.{key}", limit=MAX_TEXT)
            if value.strip():
                sections[key] = value

    gram = r.obj(data, "grammar", {"abnf", "rule"})
    grammar = Grammar(
        abnf=r.text(gram, "abnf", "grammar.abnf", limit=MAX_TEXT),
        rule=r.text(gram, "rule", "grammar.rule").strip(),
    )

    ex = r.obj(data, "examples", {"valid", "invalid", "equivalent"})
    equivalent = []
    raw_groups = ex.get("equivalent") or []
    if not isinstance(raw_groups, list):
        r.fail("examples.equivalent", f"must be a list of lists of URNs, not {_type_name(raw_groups)}.")
    else:
        if len(raw_groups) > MAX_EQUIVALENT_GROUPS:
            r.fail("examples.equivalent", f"has {len(raw_groups):,} groups; the limit is {MAX_EQUIVALENT_GROUPS:,}.")
            raw_groups = []
        for index, group in enumerate(raw_groups):
            if isinstance(group, list) and len(group) > MAX_GROUP_URNS:
                r.fail(f"examples.equivalent[{index}]", f"has {len(group):,} URNs; the limit is {MAX_GROUP_URNS:,}.")
                continue
            urns = r.strings(group, f"examples.equivalent[{index}]")
            if len(urns) < 2 and isinstance(group, list):
                r.fail(f"examples.equivalent[{index}]", "must list at least two URNs that are equivalent.")
            equivalent.append(urns)
    examples = Examples(
        valid=r.strings(ex.get("valid"), "examples.valid"),
        invalid=r.strings(ex.get("invalid"), "examples.invalid"),
        equivalent=equivalent,
    )
    for path, urns in (
        ("examples.valid", examples.valid),
        ("examples.invalid", examples.invalid),
        ("examples.equivalent", [urn for group in equivalent for urn in group]),
    ):
        total = sum(len(urn) for urn in urns)
        if total > MAX_EXAMPLES_CHARS:
            r.fail(path, f"has {total:,} characters of URNs in all; the limit is {MAX_EXAMPLES_CHARS:,}.")

    equivalence = r.strings(data.get("equivalence"), "equivalence")
    for step in equivalence:
        if step not in EQUIVALENCE_STEPS:
            r.fail(
                "equivalence", f"{step!r} is not a known normalisation step (known: {', '.join(EQUIVALENCE_STEPS)})."
            )
    equivalence = [step for step in EQUIVALENCE_STEPS if step in equivalence]

    max_length = data.get("max_length")
    if max_length is not None and (
        isinstance(max_length, bool) or not isinstance(max_length, int) or not 1 <= max_length <= 4096
    ):
        r.fail("max_length", "must be a whole number from 1 to 4096, or null.")
        max_length = None

    resolvers = _resolvers(r, data.get("resolvers"), grammar)
    unplaced = r.text(data, "unplaced", "unplaced", limit=MAX_TEXT)

    if not r.errors:
        total = proposal_chars(sections, grammar, examples, registrant, document, title, unplaced)
        if total > MAX_PROPOSAL_CHARS:
            r.fail(
                "(proposal)", f"is {total:,} characters in all; the limit for one proposal is {MAX_PROPOSAL_CHARS:,}."
            )
    if r.errors:
        raise InterchangeError(r.errors)
    return ProposalData(
        snid,
        title,
        version,
        registration_date,
        registrant,
        document,
        sections,
        grammar,
        examples,
        equivalence,
        max_length,
        resolvers=resolvers,
        unplaced=unplaced if unplaced.strip() else "",
    )


def grammar_rule_names(abnf: str) -> list[str]:
    """The rule names of a grammar as written (a linear parse, no compilation)."""
    from .grammar.parse import parse_grammar  # the ABNF parser, on first use (tests/test_startup.py)

    return [rule.name for rule in parse_grammar(abnf).rules.values()] if abnf.strip() else []


def resolver_problems(resolvers: list[dict]) -> list[str]:
    """What is wrong with resolvers read from a document, each as "key: sentence" (the keys of the
    interchange format), so the import says it before a draft is made of them."""
    r = _Reader()
    _resolvers(r, resolvers, Grammar())
    return [
        f"{error} It cannot be saved as it is: correct it (section 3.2) before creating the draft."
        for error in r.errors
    ]


def resolvers_load(raw, abnf: str) -> tuple[list[dict], list[str]]:
    """Resolvers from untrusted data, checked (template shape and the grammar's rule names):
    (resolvers, errors). Used by the resolver-change service."""
    r = _Reader()
    resolvers = _resolvers(r, raw, Grammar(abnf=abnf))
    if not r.errors:
        errors, _warnings = resolvers_errors(resolvers, grammar_rule_names(abnf))
        r.errors += errors
    return resolvers, r.errors


def _resolvers(r: _Reader, raw, grammar: Grammar) -> list[dict]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        r.fail("resolvers", f"must be a list of resolver objects, not {_type_name(raw)}.")
        return []
    if len(raw) > RESOLVERS_MAX:
        r.fail("resolvers", f"has {len(raw):,} entries; at most {RESOLVERS_MAX} resolvers can be declared.")
        return []
    out = []
    for index, item in enumerate(raw):
        path = f"resolvers[{index}]"
        if not isinstance(item, dict):
            r.fail(path, f"must be an object, not {_type_name(item)}.")
            continue
        for unknown in sorted(set(item) - _RESOLVER_KEYS):
            r.fail(
                f"{path}.{unknown[:40]}", f"is not a known key (expected one of: {', '.join(sorted(_RESOLVER_KEYS))})."
            )
        primary = item.get("primary", False)
        if not isinstance(primary, bool):
            r.fail(f"{path}.primary", "must be true or false.")
            primary = False
        types = item.get("media_types", [])
        resolver = {
            "name": r.text(item, "name", f"{path}.name").strip(),
            "template": r.text(item, "template", f"{path}.template", limit=MAX_LINE).strip(),
            "returns": r.text(item, "returns", f"{path}.returns", default="landing").strip() or "landing",
            "media_types": [t.strip().lower() for t in types]
            if isinstance(types, list) and all(isinstance(t, str) for t in types)
            else types,
            "primary": primary,
        }
        out.append(resolver)
    if out:
        if not any(item["primary"] for item in out):
            out[0]["primary"] = True  # the first is the primary unless another is named
        # The shape is checked here (scheme, host, size, placeholders); whether each {RuleName} is
        # a rule of the grammar is the checklist's "resolvers" check, so a draft whose grammar is
        # being reworked can still be saved, with the finding saying what to fix.
        errors, _warnings = resolvers_errors(out, None)
        for error in errors:
            where, _, message = error.partition(": ")
            if not message:
                r.fail("resolvers", error)
                continue
            number = where.split(" ")[1] if where.startswith("resolver ") else ""
            key = f"resolvers[{int(number) - 1}].{where.split(' ', 2)[2]}" if number.isdigit() else "resolvers"
            r.fail(key, message)
    return out


def proposal_chars(sections, grammar, examples, registrant, document, title="", unplaced="") -> int:
    """Characters of every text of a proposal together (``MAX_PROPOSAL_CHARS``)."""
    return (
        len(title)
        + len(unplaced)
        + sum(len(text) for text in sections.values())
        + len(grammar.abnf)
        + len(grammar.rule)
        + sum(len(urn) for urn in (*examples.valid, *examples.invalid))
        + sum(len(urn) for group in examples.equivalent for urn in group)
        + sum(len(getattr(registrant, name)) for name in (*PUBLISHABLE, "public_contact"))
        + sum(len(getattr(document, name)) for name in ("reference", "url", "status", "type"))
    )


def dump(data: ProposalData) -> dict:
    """The interchange JSON object (keys in the documented order)."""
    out = asdict(data)
    out["registration_date"] = data.registration_date.isoformat() if data.registration_date else None
    out["sections"] = {key: data.sections[key] for key in PROSE_KEYS if data.sections.get(key)}
    if not out["resolvers"]:
        del out["resolvers"]  # optional: a proposal without resolvers reads and digests as before
    if not data.unplaced:
        del out["unplaced"]  # only an import's leftovers have any
    return {"format": FORMAT, **out}


def rebased(data: ProposalData, snid: str) -> ProposalData:
    """``data`` moved to another SNID: the SNID, its examples and the grammar's SNID literal.

    Used to start a proposal from the GFD.191 worked example under the SNID the
    applicant typed (already checked to be a valid SNID), so the draft's examples
    still match its grammar. Letter case in the examples is kept as far as it goes
    (``URN:OGF:Example:`` stays mixed case, for the equivalence groups).
    """
    old = data.snid

    def cased(found: str) -> str:
        if found.islower():
            return snid.lower()
        if found.isupper():
            return snid.upper()
        return snid[:1].upper() + snid[1:].lower()

    in_urn = re.compile(rf"(?i)(urn:ogf:)({re.escape(old)})(?=:)")
    literal = re.compile(rf'(?i)"{re.escape(old)}"')

    def urn(text: str) -> str:
        return in_urn.sub(lambda m: m.group(1) + cased(m.group(2)), text)

    abnf = literal.sub(f'"{snid.lower()}"', urn(data.grammar.abnf))
    return dataclasses.replace(
        data,
        snid=snid,
        grammar=Grammar(abnf, data.grammar.rule),
        examples=Examples(
            [urn(u) for u in data.examples.valid],
            [urn(u) for u in data.examples.invalid],
            [[urn(u) for u in group] for group in data.examples.equivalent],
        ),
    )
