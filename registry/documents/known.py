"""The titles and labels the importer knows, read from ``labels.toml`` beside this module.

They are data, not code: a new template's heading ("Sub-namespace name:") or registrant label
("Declared Contact:") is one line in that file (docs/documents.md says how). The file is read
once, when the importer is first loaded; a malformed file stops the import with a message
naming it, instead of silently reading documents with fewer labels.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ..gfd191 import SECTIONS_BY_KEY

LABELS_FILE = Path(__file__).with_name("labels.toml")

_KINDS = {
    "name",
    "person",
    "contact",
    "organisation",
    "org-block",
    "address",
    "email",
    "coordinates",
    "role",
    "skip",
    "public-contact",
}


class LabelsError(RuntimeError):
    """``labels.toml`` does not say what the importer needs."""


def load(path: Path = LABELS_FILE) -> dict:
    """The known titles and labels, checked: every section key and label kind must exist."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LabelsError(f"{path} cannot be read: {exc}") from None
    headings = {title: (key or None) for title, key in data.get("headings", {}).items()}
    ambiguous = {title: (entry["section"], entry["why"]) for title, entry in data.get("ambiguous_headings", {}).items()}
    for title, key in [*headings.items(), *((t, k) for t, (k, _) in ambiguous.items())]:
        if key is not None and key not in SECTIONS_BY_KEY:
            raise LabelsError(
                f"{path}: the heading {title!r} names the section {key!r}, which the template "
                f"does not have (one of: {', '.join(SECTIONS_BY_KEY)})."
            )
    labels = {" ".join(label.lower().split()): kind for label, kind in data.get("registrant_labels", {}).items()}
    for label, kind in labels.items():
        if kind not in _KINDS:
            raise LabelsError(
                f"{path}: the registrant label {label!r} holds {kind!r}, which is not one of "
                f"{', '.join(sorted(_KINDS))}."
            )
    registrant = data.get("registrant", {})
    sub_namespace = data.get("sub_namespace", {})
    normal = {"".join(c for c in title.lower() if "a" <= c <= "z"): title for title in headings}
    for kind in ("registry_name", "prefix"):
        for title in sub_namespace.get(kind, []):
            key = "".join(c for c in title.lower() if "a" <= c <= "z")
            if headings.get(normal.get(key, ""), "") != "snid":
                raise LabelsError(
                    f"{path}: the sub-namespace title {title!r} must also be a heading of the section 'snid'."
                )
    return {
        "headings": headings,
        "ambiguous": ambiguous,
        "registrant_labels": labels,
        "openers": frozenset(" ".join(o.lower().split()) for o in registrant.get("openers", [])),
        "role_words": tuple(registrant.get("role_words", [])),
        "organisation_words": tuple(registrant.get("organisation_words", [])),
        "sub_namespace": {
            "registry_name": tuple(sub_namespace.get("registry_name", [])),
            "prefix": tuple(sub_namespace.get("prefix", [])),
            "parents": tuple(p.lower().rstrip(":") + ":" for p in sub_namespace.get("parents", [])),
        },
    }


KNOWN = load()
