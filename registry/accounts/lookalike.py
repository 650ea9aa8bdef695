"""Names as people read them: RFC 8265 user names, Unicode TR39 confusable skeletons, mixed scripts.

Case folding alone lets ``аlice`` (Cyrillic а) and ``alİce`` (dotted capital I) stand beside
``alice``: different code points, one name to a reader of a page, a mail or the review history. So:

* a new user name must be a valid RFC 8265 user name (PRECIS UsernameCaseMapped, ``precis-i18n``):
  no spaces, no compatibility characters, nothing unassigned;
* user names and public names are compared by their *skeleton* (Unicode TR39 §4): each character
  replaced by the prototype it is confusable with (the data of Unicode's ``confusables.txt`` as
  ``confusable-homoglyphs`` ships it), after the name is case-folded. Two names with one skeleton
  read alike, and the second is refused with a sentence saying which name it reads like;
* a name mixing scripts beyond what TR39's "Highly Restrictive" level allows (Latin with Cyrillic,
  Greek with Latin, …; but Japanese Han + Hiragana + Katakana is one writing) is refused for new
  names, and flagged where people decide about a person (``mixed_scripts``).

The skeleton is computed here, in Python, and stored beside the account (registry.accounts.models),
so the comparison is the same on SQLite and PostgreSQL and is one indexed lookup.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_LRM = "\u200e"  # confusable-homoglyphs wraps right-to-left characters in marks; they are not part of them
#: Sets of scripts that one writing system uses together (TR39 §5.2, "Highly Restrictive").
_ONE_WRITING = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_NO_SCRIPT = {"COMMON", "INHERITED"}
#: A dot above on a soft-dotted letter is not seen (the letter's own dot is); ``İ`` case-folds to ``i̇``.
_INVISIBLE_DOT = re.compile("(?<=[ij])\u0307")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character -> its TR39 prototype, rebuilt from confusable-homoglyphs' two-way table.

    The table holds each line of confusables.txt both ways, so a source character has exactly one entry
    (its prototype), and a prototype one entry per source. A prototype with a single source and that
    source look the same from both sides; both are then mapped to the smaller of the two, which keeps
    what a skeleton is for: two confusable strings get one skeleton.
    """
    from confusable_homoglyphs import confusables  # the table loads with the first skeleton, not at start-up

    data = confusables.confusables_data
    mapping = {}
    for key, entries in data.items():
        char = key.replace(_LRM, "")
        if len(char) != 1 or len(entries) != 1:
            continue  # a sequence (only ever a prototype) or a prototype of several sources
        raw_target = entries[0]["c"]
        target = raw_target.replace(_LRM, "")
        if len(target) == 1 and len(data.get(raw_target, ())) == 1:
            mapping[char] = min(char, target)
        else:
            mapping[char] = target
    return mapping


def skeleton(text: str) -> str:
    """TR39's skeleton of ``text`` (NFD, each character to its prototype, NFD), with format characters
    (zero-width joiners and the like) dropped and a dot above a soft-dotted letter ignored."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(ch, ch) for ch in decomposed if unicodedata.category(ch) != "Cf")
    return _INVISIBLE_DOT.sub("", unicodedata.normalize("NFD", mapped))


def scripts(text: str) -> set[str]:
    """The scripts ``text`` is written in (common characters such as digits and ``_`` belong to none)."""
    from confusable_homoglyphs import categories  # its Unicode data loads on first use, not at start-up

    return set(categories.unique_aliases(text)) - _NO_SCRIPT


def mixed_scripts(text: str) -> bool:
    """Whether ``text`` mixes scripts that no single writing system uses together (``аlice``: Cyrillic
    and Latin); a warning where people decide about an account, a refusal for a new name."""
    used = scripts(text)
    return len(used) > 1 and not any(used <= writing for writing in _ONE_WRITING)


def username_problem(name: str) -> str | None:
    """Why ``name`` cannot be a new user name under RFC 8265 and the mixed-script rule, or None."""
    from precis_i18n import get_profile  # PRECIS's tables load with the first name checked, not at start-up

    try:
        get_profile("UsernameCaseMapped").enforce(name)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start] if exc.object and exc.start < len(exc.object) else ""
        what = f"the character {bad!r} (U+{ord(bad):04X})" if bad else "a character"
        return (
            f"A user name cannot contain {what}: user names follow RFC 8265 (letters, digits and "
            "punctuation, no spaces, no look-alike forms of other characters)."
        )
    return mixed_scripts_problem(name, "A user name")


def mixed_scripts_problem(name: str, what: str) -> str | None:
    if mixed_scripts(name):
        return (
            f"{what} cannot mix the scripts {', '.join(sorted(s.title() for s in scripts(name)))}: "
            "letters of one script inside a word of another read alike and imitate other names. "
            "Use one script."
        )
    return None
