"""The published portable pattern says yes and no exactly where the lookup does.

For every demo registration: at least 1,000 strings generated from its grammar
and mutated (deletions, substitutions, insertions of URN and non-URN
characters), plus its own examples, are judged by the lookup and by the
published pattern (in RE2 and, where node is installed, in JavaScript).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
import re2
from django.urls import reverse

from benchmarks.data import populate
from registry import exports
from registry.grammar import UrnSyntaxError, grammar_compile, parse_urn, portable
from registry.grammar.analysis import Scope
from registry.grammar.crosscheck import _Generator
from registry.grammar.portable import TRANSLATOR_VERSION, portable_pattern, published_pattern
from registry.lookup import lookup_urn

from .conftest import require_external
from .factories import demo_raw, proposal_factory, user_factory

DEMO = ["example", "fdc", "img", "urn-5", "newsml"]
NOISE = list("aZ09:-._%/?#&~ ") + ["%4", "%zz", "%3A", "é"]
STRINGS_PER_SNID = 1_000


def _grammar(name):
    raw = demo_raw(name)
    compiled = grammar_compile(raw["grammar"]["abnf"], raw["grammar"]["rule"])
    return raw, compiled


def _strings(name: str, count: int = STRINGS_PER_SNID) -> list[str]:
    """Whole URNs from the grammar, and near misses of them, plus the examples."""
    raw, compiled = _grammar(name)
    rng = random.Random(f"portable-{name}")
    generator = _Generator(Scope(compiled.parsed.rules), rng)
    top = compiled.parsed.rules[compiled.analysis.top].expr
    prefix = "" if compiled.full_urn else f"urn:ogf:{raw['snid']}:"
    out = dict.fromkeys(raw["examples"]["valid"] + raw["examples"]["invalid"])
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        try:
            text = prefix + generator.sample(top)
        except (OverflowError, RecursionError):
            continue
        if rng.random() < 0.15:  # the SNID's case does not matter
            text = text.replace(raw["snid"], raw["snid"].upper(), 1)
        out[text] = None
        for _ in range(rng.randint(1, 3)):
            index = rng.randrange(len(text) + 1)
            noise = rng.choice(NOISE + [rng.choice(text)])
            kind = rng.random()
            if kind < 0.33:
                text = text[:index] + text[index + 1 :]
            elif kind < 0.66:
                text = text[:index] + noise + text[index + 1 :]
            else:
                text = text[:index] + noise + text[index:]
        out[text] = None
    return list(out)


def _lookup_says(name: str, urn: str) -> bool:
    """What the lookup answers for ``urn`` with this registration the SNID's current version."""
    raw, compiled = _grammar(name)
    try:
        parsed = parse_urn(urn)
    except UrnSyntaxError:
        return False
    return parsed.snid.lower() == raw["snid"].lower() and compiled.validator.check(parsed) == []


@pytest.mark.parametrize("name", DEMO)
def test_published_pattern_agrees_with_the_lookup_on_generated_strings(name):
    raw, compiled = _grammar(name)
    pattern = published_pattern(raw["snid"], compiled.validator.as_dict())
    program = re2.compile(pattern)
    strings = _strings(name)
    verdicts = [_lookup_says(name, urn) for urn in strings]
    disagreements = [
        (urn, ours) for urn, ours in zip(strings, verdicts, strict=True) if (program.search(urn) is not None) != ours
    ]
    assert len(strings) >= STRINGS_PER_SNID
    assert (sum(verdicts) > 50, len(verdicts) - sum(verdicts) > 50) == (True, True)
    assert disagreements == []


@pytest.mark.parametrize("name", DEMO)
def test_published_pattern_accepts_the_valid_examples_and_rejects_the_invalid(name):
    raw, compiled = _grammar(name)
    program = re2.compile(published_pattern(raw["snid"], compiled.validator.as_dict()))
    for urn in raw["examples"]["valid"] + raw["examples"]["invalid"]:
        assert (program.search(urn) is not None) == _lookup_says(name, urn), urn


def test_published_pattern_is_anchored_and_uses_no_re2_only_syntax():
    for name in DEMO:
        raw, compiled = _grammar(name)
        pattern = published_pattern(raw["snid"], compiled.validator.as_dict())
        assert (pattern[0], pattern[-1]) == ("^", "$")
        assert ("\\x{" in pattern, "(?i" in pattern, "\\u" in pattern) == (False, False, False)


def test_registration_without_grammar_publishes_the_generic_syntax():
    program = re2.compile(published_pattern("demo", None))
    cases = {
        "urn:ogf:demo:a": True,
        "urn:OGF:Demo:a%3Ab": True,
        "urn:ogf:demo:": False,
        "urn:ogf:demo:a%zz": False,
        "urn:ogf:demo:a b": False,
        "urn:ogf:other:a": False,
    }
    assert {urn: program.search(urn) is not None for urn in cases} == cases


def test_pattern_with_unknown_construct_is_not_published():
    assert portable_pattern("demo", "a.b", False) is None


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["example", "fdc"])
def test_published_pattern_agrees_with_the_real_lookup_for_registered_snids(name):
    proposal = proposal_factory(user_factory(), name=name, state="approved")
    pattern = published_pattern(proposal.snid, proposal.validator)
    program = re2.compile(pattern)
    strings = [
        urn
        for urn in _strings(name)
        if urn.startswith(("urn:", "URN:", "Urn:", "uRN:", "urN")) or urn[:8].lower() == "urn:ogf:"
    ]
    disagreements = []
    for urn in strings:
        try:
            valid = lookup_urn(urn)["valid"]
        except ValueError:
            valid = False
        if (program.search(urn) is not None) != valid:
            disagreements.append(urn)
    assert len(strings) >= 500
    assert disagreements == []


@pytest.mark.parametrize("name", DEMO)
def test_stored_body_is_the_fresh_translation_for_every_demo_grammar(name):
    raw, compiled = _grammar(name)
    fresh = portable._Translator(compiled.validator.pattern).run()
    assert compiled.validator.as_dict()["portable"] == {"version": TRANSLATOR_VERSION, "body": fresh}


@pytest.mark.django_db
def test_approval_stores_the_body_and_exports_never_translate(client, monkeypatch):
    proposals = [proposal_factory(user_factory(), name=name, state="approved") for name in DEMO]
    populate(40)
    portable.portable_body.cache_clear()
    calls = []
    run = portable._Translator.run

    def counted(self, *args, **kwargs):
        calls.append(self.text[:40])
        return run(self, *args, **kwargs)

    monkeypatch.setattr(portable._Translator, "run", counted)
    records = exports.registry_snapshot().records
    responses = [client.get(reverse("registry:namespace_detail", args=[p.snid])) for p in proposals]
    assert (len(records), [r.status_code for r in responses], len(calls)) == (45, [200] * len(DEMO), 0)
    assert [p.validator["portable"] for p in proposals] == [
        {"version": TRANSLATOR_VERSION, "body": run(portable._Translator(p.validator["pattern"]))} for p in proposals
    ]


@pytest.mark.parametrize("name", DEMO)
def test_stored_body_of_another_translator_version_is_ignored(name):
    raw, compiled = _grammar(name)
    data = compiled.validator.as_dict() | {"portable": {"version": "0" * 16, "body": "stale"}}
    fresh = portable_pattern(raw["snid"], compiled.validator.pattern, compiled.full_urn)
    assert published_pattern(raw["snid"], data) == fresh


@pytest.mark.parametrize("name", DEMO)
def test_validator_stored_without_a_body_publishes_the_same_pattern(name):
    raw, compiled = _grammar(name)
    data = compiled.validator.as_dict()
    old = {key: value for key, value in data.items() if key != "portable"}
    assert published_pattern(raw["snid"], old) == published_pattern(raw["snid"], data)


def test_stored_body_of_a_pattern_the_translator_does_not_know_publishes_nothing():
    data = {"pattern": "a.b", "full_urn": False, "length_cap": 10, "rule": "x", "portable": portable.stored_body("a.b")}
    assert (data["portable"]["body"], published_pattern("demo", data)) == (None, None)


def test_published_pattern_means_the_same_in_javascript():
    node = shutil.which("node")
    require_external("node", node is not None, "install nodejs to check the patterns in ECMAScript")
    cases = []
    for name in DEMO:
        raw, compiled = _grammar(name)
        pattern = published_pattern(raw["snid"], compiled.validator.as_dict())
        strings = _strings(name)
        cases.append({"pattern": pattern, "strings": strings, "expected": [_lookup_says(name, urn) for urn in strings]})
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const out = cases.map(c => { const plain = new RegExp(c.pattern), uni = new RegExp(c.pattern, 'u');"
        " return c.strings.filter((s, i) => plain.test(s) !== c.expected[i] || uni.test(s) !== c.expected[i]); });"
        "process.stdout.write(JSON.stringify(out));"
    )
    result = subprocess.run(
        [node, "-e", script], input=json.dumps(cases), capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(result.stdout) == [[] for _ in DEMO]


#: Grammars beside the demo ones whose translations are pinned: every construct the translator
#: knows (case-insensitive and sensitive strings, ranges and classes, repetition bounds,
#: options, alternatives, percent-encoding, prose-free core rules).
PINNED_GRAMMARS = [
    'a = "Ab" %s"Cd" 1*3DIGIT [ "-" 2HEXDIG ] *( ALPHA / "." ) "%" 2HEXDIG\n',
    'a = 1*( %x41-5A / %x61-7A / %d48-57 ) ":" ( "x" / "yz" / %x2D.2E ) 0*1"q"\n',
    'a = 4( HEXDIG ) *2( "/" 1*8( ALPHA / DIGIT / "+" / "=" ) )\n',
]
#: sha256 of the translations of the demo grammars and PINNED_GRAMMARS, by translator version.
TRANSLATIONS_DIGEST = {1: "0d688a8f866028398cc5fa6636a6cd06a2ba9c4515b6575dda08401b5518f534"}


def _translations_digest() -> str:
    import hashlib

    patterns = [_grammar(name)[1].validator.pattern for name in DEMO]
    patterns += [grammar_compile(abnf, "a").validator.pattern for abnf in PINNED_GRAMMARS]
    bodies = [portable.portable_body(pattern) for pattern in patterns]
    assert None not in bodies  # every grammar of the corpus is translated
    text = "\n".join(bodies)
    return hashlib.sha256(text.encode()).hexdigest()


def test_translator_version_changes_whenever_a_translation_changes():
    assert TRANSLATOR_VERSION in TRANSLATIONS_DIGEST, "pin the digest of the new translator version"
    assert _translations_digest() == TRANSLATIONS_DIGEST[TRANSLATOR_VERSION], (
        "the portable translations changed: raise portable.TRANSLATOR_VERSION (stored bodies of the "
        "old translator must not be trusted) and pin the new digest here"
    )
