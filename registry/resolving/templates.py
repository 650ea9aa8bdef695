"""Resolver URL templates: parse and check them, with no Django and no network.

A template is an absolute https URL with placeholders: ``{nss}`` (the whole
namespace-specific string, normalised by the SNID's equivalence rule) and
``{RuleName}`` for any rule of the registration's grammar (the text that rule
matched). Templates are untrusted text that the registry will later put in a
``Location`` header, so what is refused is refused by construction:

- bounded size and placeholder count, checked before any other work, and a
  scanner that reads each character once (no ``{`` bomb can cost more);
- only ``https://`` (``http://`` is accepted with a warning); anything else —
  ``javascript:``, ``data:``, a scheme-relative ``//host`` — is refused;
- the host is written out literally: no placeholder, no userinfo (``user@``),
  so no URN can choose where the registry sends people (no open redirect);
- the host is a DNS name (``host_problem``): no IP address in any notation, no
  ``localhost``, no single-label name; the path has no '.' or '..' segment;
- no white space or control characters (CR/LF cannot split a header).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Longest template, in characters.
TEMPLATE_MAX_LENGTH = 1000
#: Most placeholders in one template.
PLACEHOLDERS_MAX = 16
#: Most resolvers one registration declares.
RESOLVERS_MAX = 10
NAME_MAX_LENGTH = 100
MEDIA_TYPES_MAX = 10
#: What a resolver returns.
RETURNS = ("landing", "metadata", "data")
NSS = "nss"

_ALPHA = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = _ALPHA | frozenset("0123456789-")
#: Characters a URL may carry literally (RFC 3986 unreserved, reserved and '%').
_URL_CHARS = _ALPHA | frozenset("0123456789-._~:/?#[]@!$&'()*+,;=%")
_HOST_CHARS = _ALPHA | frozenset("0123456789-.")


@dataclass(frozen=True, slots=True)
class Placeholder:
    name: str  # as written in the template
    start: int  # index of "{"
    end: int  # index after "}"


@dataclass(slots=True)
class Checked:
    """A template's parts (literal text and placeholders, in order), with what is wrong."""

    template: str
    parts: list = field(default_factory=list)  # str | Placeholder
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def placeholders(self) -> list[Placeholder]:
        return [part for part in self.parts if isinstance(part, Placeholder)]


def _scan(template: str, checked: Checked) -> None:
    """Split into literal text and placeholders in one pass; stop at the first error."""
    literal_start = 0
    index = 0
    count = 0
    while index < len(template):
        char = template[index]
        if char == "}":
            checked.errors.append(f"Character {index + 1}: '}}' without an opening '{{'.")
            return
        if char != "{":
            if char not in _URL_CHARS:
                shown = {"\r": "a carriage return", "\n": "a line feed", "\t": "a tab", " ": "a space"}.get(
                    char, repr(char)
                )
                checked.errors.append(
                    f"Character {index + 1} is {shown}, which cannot stand in a URL; percent-encode it."
                )
                return
            index += 1
            continue
        close = index + 1
        while close < len(template) and template[close] in _NAME_CHARS and close - index <= NAME_MAX_LENGTH:
            close += 1
        if close >= len(template) or template[close] != "}" or close == index + 1:
            checked.errors.append(
                f"Character {index + 1}: '{{' must open a placeholder such as {{nss}} or "
                "{RuleName} (letters, digits and '-', closed by '}')."
            )
            return
        name = template[index + 1 : close]
        if name[0] not in _ALPHA:
            checked.errors.append(f"Character {index + 2}: a placeholder name starts with a letter.")
            return
        count += 1
        if count > PLACEHOLDERS_MAX:
            checked.errors.append(f"The template has more than {PLACEHOLDERS_MAX} placeholders.")
            return
        if literal_start < index:
            checked.parts.append(template[literal_start:index])
        checked.parts.append(Placeholder(name, index, close + 1))
        index = literal_start = close + 1
    if literal_start < len(template):
        checked.parts.append(template[literal_start:])


def template_check(template: str, rule_names=None) -> Checked:
    """Check one template. ``rule_names``: the grammar's rule names (any letter case), or None
    when the grammar is not known, in which case rule placeholders are not checked here."""
    checked = Checked(template)
    if not isinstance(template, str) or not template:
        checked.errors.append("The URL template is empty.")
        return checked
    if len(template) > TEMPLATE_MAX_LENGTH:
        checked.errors.append(
            f"The URL template is {len(template):,} characters long; the limit is {TEMPLATE_MAX_LENGTH:,}."
        )
        return checked
    lowered = template[:8].lower()
    if lowered.startswith("https://"):
        scheme_length = 8
    elif lowered.startswith("http://"):
        scheme_length = 7
        checked.warnings.append(
            "The template uses http://: readers are sent over an unencrypted "
            "connection; use https:// if the resolver offers it."
        )
    else:
        shape = (
            "a scheme-relative address ('//host')"
            if template.startswith("//")
            else f"'{template.split(':', 1)[0][:20]}:'"
            if ":" in template[:30]
            else "no scheme"
        )
        checked.errors.append(f"A resolver URL must start with https:// (or http://); this one has {shape}.")
        return checked
    _scan(template, checked)
    if checked.errors:
        return checked
    rest = template[scheme_length:]
    authority_end = len(rest)
    for stop in "/?#":
        position = rest.find(stop)
        if position != -1:
            authority_end = min(authority_end, position)
    authority = rest[:authority_end]
    if "{" in authority:
        checked.errors.append(
            "The host must be written out: a placeholder in the host would let a URN "
            "choose where the registry sends people."
        )
        return checked
    if "@" in authority:
        checked.errors.append(
            "The address must not contain user information ('user@host'): it is a "
            "known way to disguise where a link goes."
        )
        return checked
    if authority.startswith("["):
        checked.errors.append(f"{authority[:60]!r} is an IP address literal (IPv6): " + _DNS_NAME_ONLY)
        return checked
    host, _, port = authority.partition(":")
    problem = host_problem(host)
    if problem:
        checked.errors.append(problem)
        return checked
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        checked.errors.append(f"{port[:10]!r} is not a port number.")
        return checked
    problem = dot_segment(template[scheme_length + authority_end :])
    if problem:
        checked.errors.append(problem)
        return checked
    known = None if rule_names is None else {name.lower(): name for name in rule_names}
    for placeholder in checked.placeholders:
        if placeholder.name.lower() == NSS:
            continue
        if known is not None and placeholder.name.lower() not in known:
            names = ", ".join(sorted(known.values())[:12]) or "none"
            checked.errors.append(
                f"Character {placeholder.start + 1}: {{{placeholder.name}}} is neither "
                f"{{nss}} nor a rule of the grammar (its rules: {names})."
            )
    return checked


_DNS_NAME_ONLY = (
    "give the resolver's DNS name (such as data.example.org). The registry sends readers "
    "only to names: an address literal can point into the reader's own network, and no "
    "name check applies to it."
)
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _numeric_label(label: str) -> bool:
    """Whether a URL parser reads ``label`` as a number (WHATWG URL "ends in a number"): decimal,
    octal (leading 0) or hexadecimal (0x…) — what makes a host an IPv4 address in any notation."""
    if label.isdigit():
        return True
    return label[:2].lower() == "0x" and set(label[2:]) <= _HEX_DIGITS


def host_problem(host: str) -> str:
    """Why ``host`` is not a DNS name a resolver may be at, or "".

    Browsers read a host whose last label is a number as an IPv4 address in any notation —
    dotted (127.0.0.1), decimal (2130706433), hexadecimal (0x7f.1), octal (0177.0.0.1),
    shortened (127.1), or just ``0`` — so every such host is refused, as are ``localhost``
    and its subdomains (RFC 6761 §6.3: always the reader's own machine) and single-label
    names (they mean whatever the reader's own network makes of them)."""
    shown = repr(host[:60])
    if not host or not set(host) <= _HOST_CHARS:
        return f"{shown} is not a host name (letters, digits, '-' and '.')."
    name = host[:-1] if host.endswith(".") else host  # an absolute name's final dot
    labels = name.split(".")
    if any(not label for label in labels):
        return f"{shown} is not a host name: it has an empty label ('..', or a '.' at its start)."
    if any(len(label) > 63 for label in labels) or len(name) > 253:
        return f"{shown} is not a host name: a label is at most 63 characters, a name at most 253."
    if any(label.startswith("-") or label.endswith("-") for label in labels):
        return f"{shown} is not a host name: a label cannot start or end with '-'."
    if _numeric_label(labels[-1]):
        return f"{shown} is an IP address (a host ending in a number is read as one): " + _DNS_NAME_ONLY
    if labels[-1].lower() == "localhost":
        return (
            f"{shown} is the reader's own computer (localhost, RFC 6761), not a resolver the "
            "registry can send readers to: " + _DNS_NAME_ONLY
        )
    if len(labels) == 1:
        return f"{shown} is a single-label host name, which only means something inside one network: " + _DNS_NAME_ONLY
    return ""


#: Path segments a URL parser removes or resolves (WHATWG URL: "." and "..", '.' also as %2e).
_DOT_SEGMENTS = frozenset({".", "..", "%2e", ".%2e", "%2e.", "%2e%2e"})


def dot_segment(path: str) -> str:
    """Why the path (with query and fragment) of a URL has a '.' or '..' segment, or "".

    A browser removes such a segment and the one before it (``%2e`` counts as a '.'), so it
    changes which resource the URL names; only the path counts (up to '?' or '#')."""
    end = len(path)
    for stop in "?#":
        position = path.find(stop)
        if position != -1:
            end = min(end, position)
    for segment in path[:end].split("/"):
        if len(segment) <= 6 and segment.lower() in _DOT_SEGMENTS:
            return (
                f"The URL's path would have a {segment!r} segment, which browsers resolve to another "
                "path: a placeholder value must never change which path the URL names."
            )
    return ""


def rule_placeholders(template: str) -> list[str]:
    """The rule names a (checked) template uses, lower-cased, in order, each once."""
    checked = template_check(template)
    names = [p.name.lower() for p in checked.placeholders if p.name.lower() != NSS]
    return list(dict.fromkeys(names))


def resolver_errors(resolver: dict, rule_names=None, where: str = "") -> tuple[list[str], list[str]]:
    """Errors and warnings of one resolver's fields (name, template, returns, media types)."""
    errors, warnings = [], []
    name = resolver.get("name", "")
    if not isinstance(name, str) or not name.strip():
        errors.append(f"{where}name: give the resolver a name (e.g. the provider's).")
    elif len(name) > NAME_MAX_LENGTH or any(ord(c) < 32 for c in name):
        errors.append(f"{where}name: at most {NAME_MAX_LENGTH} characters, no control characters.")
    checked = template_check(resolver.get("template", ""), rule_names)
    errors += [f"{where}template: {e}" for e in checked.errors]
    warnings += [f"{where}template: {w}" for w in checked.warnings]
    if resolver.get("returns", "landing") not in RETURNS:
        errors.append(f"{where}returns: must be one of {', '.join(RETURNS)}.")
    types = resolver.get("media_types", [])
    if not isinstance(types, list) or len(types) > MEDIA_TYPES_MAX:
        errors.append(f"{where}media_types: a list of at most {MEDIA_TYPES_MAX} media types.")
    else:
        for media_type in types:
            if not isinstance(media_type, str) or not _media_type(media_type):
                errors.append(
                    f"{where}media_types: {str(media_type)[:60]!r} is not a media type "
                    "(type/subtype, e.g. application/json)."
                )
    return errors, warnings


def _media_type(text: str) -> bool:
    allowed = _NAME_CHARS | frozenset("!#$&^_.+")
    kind, slash, sub = text.partition("/")
    return bool(slash) and 0 < len(text) <= 100 and bool(kind) and bool(sub) and set(kind + sub) <= allowed


def resolvers_errors(resolvers: list[dict], rule_names=None) -> tuple[list[str], list[str]]:
    """Errors and warnings of a registration's resolver list (each error names its resolver)."""
    if len(resolvers) > RESOLVERS_MAX:
        return [f"At most {RESOLVERS_MAX} resolvers can be declared."], []
    errors, warnings = [], []
    names = set()
    for number, resolver in enumerate(resolvers, start=1):
        e, w = resolver_errors(resolver, rule_names, f"resolver {number} ")
        errors += e
        warnings += w
        name = str(resolver.get("name", "")).strip().lower()
        if name and name in names:
            errors.append(f"resolver {number} name: another resolver is already called {name!r}.")
        names.add(name)
    if sum(1 for r in resolvers if r.get("primary")) > 1:
        errors.append("Only one resolver can be the primary.")
    return errors, warnings
