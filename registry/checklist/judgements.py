"""What only the editor can judge (GFD.191 §5), with the words that prompted each question."""

from __future__ import annotations

import re2

from .. import wording
from ..gfd191 import SECTIONS_BY_KEY
from .core import EDITOR, FAIL, WARNING, Context, _one, check

# --- judgements for the editor -------------------------------------------------------------

_DELEGATION = re2.compile(r"(?i)delegat|third[- ]part|sub-?namespace|sub-?delegat|assigning organi")


@check(
    "subdelegation",
    title="Sub-delegation",
    needs=("written:identifier_assignment",),
    reference="GFD.191 §5",
    item={"section": "identifier_assignment"},
)
def subdelegation(ctx: Context):
    ref, item = "GFD.191 §5", {"section": "identifier_assignment"}
    text = ctx.section("identifier_assignment")
    if not text:
        return _one(
            "subdelegation",
            WARNING,
            "Section 5.1 Identifier assignment is empty: nothing to check for delegation.",
            ref,
            item,
        )
    said = wording.mentions(text, _DELEGATION)
    if not said:
        return _one(
            "subdelegation",
            EDITOR,
            "The text of section 5.1 does not mention delegation or third parties; please judge "
            "who assigns identifiers.",
            ref,
            item,
        )
    affirmed = [m for m in said if not m.negated]
    if not affirmed:
        return _one(
            "subdelegation",
            EDITOR,
            f"The text mentions {wording.words_of(said)} only in a negative statement "
            f"({wording.quoted(said)}); please judge: it seems to say that assignment is not "
            "delegated.",
            ref,
            item,
        )
    missing = [SECTIONS_BY_KEY[k].heading for k in ("uniqueness", "immutability") if not ctx.section(k)]
    message = (
        f"The text mentions {wording.words_of(affirmed)} ({wording.quoted(affirmed)}); please "
        "judge: if assignment is delegated to third parties, do sections 4.2 and 5.2 explain how "
        "they keep URNs unique and immutable?"
    )
    if missing:
        message += f" ({' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty.)"
    return _one("subdelegation", EDITOR, message, ref, item)


_ATTRIBUTES = re2.compile(r"(?i)date|year|domain|provider|host|org|name|location|country|owner")


@check(
    "immutability",
    title="Identifier immutability",
    needs=("written:immutability",),
    reference="GFD.191 §5, §6 (5.2)",
    item={"section": "immutability"},
)
def immutability(ctx: Context):
    ref, item = "GFD.191 §5, §6 (5.2)", {"section": "immutability"}
    if not ctx.section("immutability"):
        return _one("immutability", FAIL, "Section 5.2 must explain why URNs never need to change.", ref, item)
    grammar = ctx.grammar
    names = []
    if grammar is not None:
        names = [
            grammar.parsed.rules[key].name
            for key in grammar.analysis.reachable
            if _ATTRIBUTES.search(grammar.parsed.rules[key].name)
        ]
    message = "How is immutability ensured?"
    if names:
        # Rule names are wording too: "DOMAIN" suggests an attribute that can change, no more.
        message += (
            f" The grammar's rule names mention {', '.join(f'“{n}”' for n in names)}, which may "
            "be attributes that can change; please judge what keeps the URN valid if they do."
        )
    return _one("immutability", EDITOR, message, ref, item)


@check(
    "scope", title="Within the OGF's scope", needs=("written:scope",), reference="GFD.191 §5", item={"section": "scope"}
)
def scope(ctx: Context):
    return _one(
        "scope",
        EDITOR,
        "Does the intended use (4.1 Scope) fall within the scope of the OGF?",
        "GFD.191 §5",
        {"section": "scope"},
    )
