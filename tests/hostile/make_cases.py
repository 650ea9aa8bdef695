"""Writes cases.json, the hostile-input corpus of tests/test_hostile.py (run it after editing)."""

import json
from pathlib import Path


def R(text, times):
    return {"repeat": text, "times": times}


LOOKUPS = [
    "urn:ogf:example:cluster:2009:example.net:42",
    "",
    " ",
    "urn",
    "urn:",
    "urn:ogf",
    "urn:ogf:",
    "urn:ogf::",
    "urn:ogf:example",
    "urn:ogf:example:",
    "URN:OGF:EXAMPLE:X",
    "urn:ogf:-x:y",
    "urn:ogf:x-:y",
    "urn:ogf:" + "a" * 32 + ":x",
    "urn:ogf:" + "a" * 33 + ":x",
    "urn:ogf:ex ample:x",
    "urn:ogf:example:a b",
    "urn:ogf:example:a\tb",
    "urn:ogf:example:a\nb",
    "urn:ogf:example:a\rb",
    "urn:ogf:example:\u0000",
    "urn:ogf:example:a\u0000b",
    "urn:ogf:example:\u0001\u0002\u0003",
    "urn:ogf:example:\u007f",
    "urn:ogf:example:%",
    "urn:ogf:example:%4",
    "urn:ogf:example:%zz",
    "urn:ogf:example:%00",
    "urn:ogf:example:%2F..%2F",
    "urn:ogf:example:../../etc/passwd",
    "urn:ogf:../..:x",
    "urn:ogf:%2e%2e:x",
    "urn:ogf:example:?query#frag",
    "urn:ogf:example:#",
    "urn:ogf:example:?",
    "urn:ogf:example:/",
    "urn:ogf:\u212aelvin:x",
    "urn:ogf:\uff45xample:x",
    "urn:ogf:exampl\u0435:x",
    "urn:ogf:example:caf\u00e9",
    "urn:ogf:example:\U0001f600",
    "urn:ogf:example:\u202e",
    "urn:ogf:example:\ufeff",
    "\ufeffurn:ogf:example:x",
    "urn:ogf:example:<script>alert(1)</script>",
    'urn:ogf:example:"><img src=x onerror=alert(1)>',
    "urn:ogf:example:javascript:alert(1)",
    "javascript:alert(1)",
    "urn:ogf:example:' OR 1=1 --",
    "urn:ogf:example:'; DROP TABLE registry_proposal; --",
    "urn:ogf:example:${jndi:ldap://x}",
    "urn:ogf:example:{{7*7}}",
    "urn:ogf:example:%s%s%s%n",
    "urn:isbn:0451450523",
    "urn:ietf:rfc:2141",
    "http://example.org/",
    "urn:ogf:fdc:example.com:2002:A572007",
    "urn:ogf:fdc:" + "a." * 1000 + "com:2002:x",
    "urn:ogf:urn-5:" + "A" * 26,
    "urn:ogf:newsml:x:20001006:y:1U",
    "urn:ogf:nothing:x",
    "urn:ogf:img:example.com:20040101:root",
    {"prefix": "urn:ogf:example:", **R("a", 4080)},
    {"prefix": "urn:ogf:example:", **R("a", 4081)},
    {"prefix": "urn:ogf:example:", **R("a", 100000)},
    {"prefix": "urn:ogf:example:", **R("%41", 1300)},
    {"prefix": "urn:ogf:example:", **R(":", 4000)},
    {"prefix": "urn:ogf:example:", **R("a:", 2000)},
    {"prefix": "urn:ogf:fdc:", **R("a.", 2000)},
    {"prefix": "urn:ogf:example:", **R("\u00e9", 3000)},
    {"prefix": "", **R("urn:ogf:", 500)},
    {"prefix": "urn:ogf:example:", **R("\u0000", 1000)},
    {"prefix": "urn:ogf:example:cluster:2009:", **R("a-", 2000)},
    {"prefix": "urn:ogf:example:x?", **R("?", 3000)},
    "urn:ogf:example:" + "%e3%82%b9" * 10,
    "urn:ogf:EXAMPLE:cluster:2009:example.net:42",
    "urn:ogf:Example:CLUSTER:2009:EXAMPLE.net:42",
    "urn:ogf:example:supercomputer:1949:colossus.bletchleypark.org.uk:1",
    "urn:ogf:example:cluster:2009:example.net:42#frag",
    "urn:ogf:example:cluster:2009:example.net:42?q=1",
]

BODIES = [
    "",
    "{",
    "}",
    "[",
    "null",
    "true",
    "1",
    '"urns"',
    "[]",
    "{}",
    '{"urns": null}',
    '{"urns": 1}',
    '{"urns": "urn:ogf:a:b"}',
    '{"urns": {}}',
    '{"urns": [null]}',
    '{"urns": [1, 2]}',
    '{"urns": [["urn:ogf:a:b"]]}',
    '{"urns": [{"a": 1}]}',
    '{"urns": [true]}',
    '{"urns": [""]}',
    '{"urns": ["\\u0000"]}',
    '{"urns": ["urn:ogf:a:b"], "extra": 1}',
    '{"URNS": ["urn:ogf:a:b"]}',
    '{"urns": ["urn:ogf:a:b",]}',
    "{'urns': ['urn:ogf:a:b']}",
    '{"urns": ["\\ud800"]}',
    {"raw_prefix": "", **R("[", 100000)},
    {"raw_prefix": '{"urns": ', **R("[", 5000)},
    {"raw_prefix": "", **R('{"a":', 3000)},
    {"hex": "fffe00"},
    {"hex": "c0af"},
    {"hex": "7b2275726e73223a5b22ff225d7d"},
    {"urns_repeat": "urn:ogf:fdc:example.com:2002:A", "times": 10001},
    {"urns_repeat": "x", "times": 10000},
    {"urns_repeat": "urn:ogf:example:" + "a" * 4000, "times": 200},
]

SNIDS = [
    "..",
    ".",
    "%2F",
    "%2f..",
    "..%2F..",
    "%00",
    "%2500",
    "example%00",
    "example%2F1",
    "EXAMPLE",
    "Example",
    "eXaMpLe",
    "\u212aelvin",
    "\uff45xample",
    "exampl\u0435",
    "example\u200b",
    "-",
    "--",
    "a" * 33,
    "a" * 300,
    "<script>",
    "\"'><",
    "%3Cscript%3E",
    "con",
    "null",
    "undefined",
    "0",
    "example;rm",
    "example|ls",
    "example`id`",
    "\u202eelpmaxe",
    "x" * 32,
    "urn:ogf:example",
]

XSS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))"]
FORM = [
    {"field": field, "value": payload}
    for field in (
        "title",
        "registrant_name",
        "registrant_organisation",
        "registrant_email",
        "registrant_address",
        "document_reference",
        "section_scope",
        "section_syntactic_structure",
        "section_examples",
        "grammar_rule",
    )
    for payload in XSS
]
FORM += [
    {"field": "section_scope", "value": R("x", 1000000)},
    {"field": "section_scope", "value": R("# h\n", 30000)},
    {"field": "title", "value": R("t", 5000)},
    {"field": "section_scope", "value": "a\u0000b"},
    {"field": "section_scope", "value": "ctrl \u0001\u0002\u0007\u001b[31m"},
    {"field": "examples_valid", "value": R("urn:ogf:example:x\n", 10000)},
    {"field": "examples_valid", "value": R("urn:ogf:example:x\n", 1001)},
    {"field": "examples_equivalent", "value": R("a b\n", 2000)},
    {"field": "grammar_abnf", "value": R('r = "a"\n', 5000)},
    {"field": "grammar_abnf", "value": 'a = *( *"a" ) "b"\n'},
    {"field": "grammar_abnf", "value": 'a = "(" a ")" / "x"\n'},
    {"field": "grammar_abnf", "value": "a = b\nb = a\n"},
    {"field": "grammar_abnf", "value": 'a = 99999999999*"x"\n'},
    {"field": "grammar_abnf", "value": 'a = 1001*1002"x"\n'},
    {"field": "grammar_abnf", "value": "a = %x0-10FFFF\n"},
    {"field": "grammar_abnf", "value": '\u0000 = "x"\n'},
    {"field": "grammar_abnf", "value": "a = <script>alert(1)</script>\n"},
    {"field": "grammar_abnf", "value": 'a = "\u2019"\n'},
    {
        "field": "grammar_abnf",
        "value": "\n".join(f'r{i} = r{i + 1} r{i + 1} / "x"' for i in range(40)) + '\nr40 = "y"\n',
    },
    {"field": "grammar_abnf", "value": "\n".join(f'r{i} = r{i + 1} / "{i}"' for i in range(299)) + '\nr299 = "z"\n'},
    {"field": "grammar_abnf", "value": "\n".join(f'r{i} = "{i}"' for i in range(10000))},
    {"field": "version", "value": "-1"},
    {"field": "version", "value": "99999999999999999999"},
    {"field": "version", "value": "1e9"},
    {"field": "max_length", "value": "0"},
    {"field": "max_length", "value": "4097"},
    {"field": "document_url", "value": "javascript:alert(1)"},
    {"field": "document_url", "value": "data:text/html,<script>alert(1)</script>"},
    {"field": "document_status", "value": "hacked"},
    {"field": "equivalence", "value": "lowercase"},
    {"field": "snid", "value": "x-test"},
    {"field": "snid", "value": "../etc"},
    {"field": "snid", "value": "\u212aelvin"},
    {"field": "snid", "value": R("a", 100)},
    # Huge fields (issue 24): each is refused naming its limit and shown back cut to it.
    {"field": "examples_valid", "value": R("urn:ogf:example:" + "a" * 4000 + "\n", 250)},
    {"field": "examples_invalid", "value": R("urn:ogf:example:" + "b" * 4000 + "\n", 250)},
    {"field": "examples_equivalent", "value": R(" ".join(["urn:ogf:example:" + "c" * 4000] * 11) + "\n", 20)},
    {"field": "examples_equivalent", "value": R("urn:ogf:example:a urn:ogf:example:A\n", 201)},
    {"field": "section_examples", "value": R("y", 150_000)},
]

#: Request bodies past a path's limit (registry/bodylimits.py): 413 before anything is read.
HUGE_BODIES = [
    {"field": "examples_equivalent", "value": R(" ".join(["urn:ogf:example:" + "c" * 4000] * 11) + "\n", 1000)},
    {"field": "examples_valid", "value": R("urn:ogf:example:x\n", 2_500_000)},
]

INTERCHANGE = [
    None,
    [],
    "string",
    1,
    True,
    {},
    {"snid": None},
    {"snid": 1},
    {"snid": ["x"]},
    {"snid": {"a": 1}},
    {"snid": "x", "version": "1"},
    {"snid": "x", "version": -5},
    {"snid": "x", "version": 1.5},
    {"snid": "x", "version": None},
    {"snid": "x", "sections": []},
    {"snid": "x", "sections": {"scope": None}},
    {"snid": "x", "sections": {"scope": {"a": 1}}},
    {"snid": "x", "grammar": "a = b"},
    {"snid": "x", "grammar": {"abnf": 5}},
    {"snid": "x", "examples": []},
    {"snid": "x", "examples": {"valid": [None]}},
    {"snid": "x", "examples": {"equivalent": "a"}},
    {"snid": "x", "examples": {"equivalent": [[1, 2]]}},
    {"snid": "x", "equivalence": "all"},
    {"snid": "x", "equivalence": [None]},
    {"snid": "x", "max_length": "10"},
    {"snid": "x", "registration_date": 20240101},
    {"snid": "x", "registration_date": "2024-02-30"},
    {"snid": "x", "registrant": []},
    {"snid": "x", "document": {"url": 5}},
    {"snid": "x", "unknown": {"deep": [[[[[1]]]]]}},
    {"snid": "x", "title": {"nested": {"deeper": {"deepest": 1}}}},
]

# --- issue 14: untrusted text that once took a worker or the machine down ------------------
# Each grammar is {"abnf": text or {repeat}, "examples": [...]}; {"prefix", "repeat", "times",
# "suffix"} expands to prefix + repeat * times + suffix.


def overlapping_classes(count, rules=False):
    """``a = *(a/b) a (200C1 / … / 200Cn)``: n distinct character classes that all contain ``a``."""
    others = [chr(c) for c in range(0x21, 0x7F) if chr(c) not in 'aA"']
    classes = []
    for i in range(1, count + 1):
        extra = sorted(
            {others[i % len(others)], others[(i * 7) % len(others)], others[(i // len(others)) % len(others)]}
        )
        classes.append('"a" / ' + " / ".join(f"%x{ord(c):02X}" for c in extra))
    if rules:
        return (
            'a = *("a" / "b") "a" ('
            + " / ".join(f"200c{i}" for i in range(1, count + 1))
            + ")\n"
            + "".join(f"c{i} = {body}\n" for i, body in enumerate(classes, start=1))
        )
    return 'a = *("a" / "b") "a" (' + " / ".join(f"200({body})" for body in classes) + ")\n"


def G(abnf, *examples):
    return {"abnf": abnf, "examples": list(examples)}


def RS(prefix, text, times, suffix=""):
    return {"prefix": prefix, "repeat": text, "times": times, "suffix": suffix}


GRAMMARS = [
    G('a = 64(64(64(64(64"x"))))\n'),
    G('a = 64(64(64(64(64(64"x")))))\n'),
    G("\n".join([f"r{n} = 2r{n - 1}" for n in range(299, 0, -1)] + ['r0 = "x"']) + "\n"),
    G("\n".join([f"r{n} = r{n - 1} r{n - 1}" for n in range(299, 0, -1)] + ['r0 = "x"']) + "\n"),
    G("\n".join([f"r{n} = r{n - 1} r{n - 1} / r{n - 1}" for n in range(39, 0, -1)] + ['r0 = "a" / "b"']) + "\n"),
    G(RS('a = "', "x", 100_000, '"\n')),
    G(RS('a = "', "x", 9_000, '"\n')),
    G(RS('a = "x"', ' / "x"', 9_999, "\n")),
    G(RS('a = "x"', ' / "y" "z"', 1_500, "\n")),
    G(RS("", "a", 50_000, ' = "x"\n')),
    G(RS("", "a", 5_000, ' = "x"\n')),
    G("a = %x110000\n"),
    G("a = %d1e25\n"),
    G("a = 1*%x0-FFFFFFFF\n"),
    G("a = %b" + "1" * 5000 + "\n"),
    G(RS("a = %x", "F", 9_000, "\n")),
    G("a = %x41." + ".".join(["41"] * 5000) + "\n"),
    G("a = %xD800-DFFF\n"),
    G("a = 1*(%x0-10FFFF / %x20-7E)\n"),
    G("a = %x41-30\n"),
    G("a = 1*2001ALPHA\n", "urn:ogf:example:" + "a" * 2001),
    G('a = 100000000000000000000*"x"\n'),
    G('a = 1*99999999999999999999999999"x"\n'),
    G('a = 4096(4096"x")\n'),
    G('a = 4096*4096("ab" / "c")\n'),
    G('a = 1000"x" 1000"y" 1000"z" 1000"w" 1000"v"\n'),
    G('a = 5*3"x"\n'),
    G(RS("a = ", "(", 1_000, '"x"' + ")" * 1_000 + "\n")),
    G(RS("a = ", "[", 1_000, '"x"' + "]" * 1_000 + "\n")),
    G("a = " + "(" * 41 + '"x"' + ")" * 41 + "\n"),
    G('a = *(*(*(*(*"a"))))\n', "urn:ogf:example:" + "a" * 3000),
    G('a = *(*"x" *"x" *"x") "y"\n', "urn:ogf:example:" + "x" * 300, "urn:ogf:example:" + "x" * 150 + "z"),
    G('a = *( *"a" ) "b"\n', "urn:ogf:example:" + "a" * 199 + "c"),
    G("a = *(a)\n"),
    G('a = "(" a ")" / "x"\n', "urn:ogf:example:" + "(" * 150 + "x" + ")" * 150),
    G(RS('a = "x"\n', 'a =/ "y"\n', 299)),
    G(RS('a = "x"\n', ";", 99_000, "\n")),
    G(RS("", 'a = "x"\r', 5_000)),
    G('a = "\u0000"\n'),
    G('\u00e4 = "x"\n'),
    G("a = <" + "x" * 9_000 + ">\n"),
    G(
        "\n".join(f"r{i} = " + " / ".join(['"x"'] * 900) for i in range(8))
        + "\nall = "
        + " / ".join(f"r{i}" for i in range(8))
        + "\n"
    ),
    G('\t\ta = "x"\n\t\t\t/ "y"\n\u00a0b = "z"\n'),
    # Matching cost (issue 24): within every size limit, yet RE2's DFA overflows its cache.
    G(overlapping_classes(300), "urn:ogf:example:" + "a" * 4000, "urn:ogf:example:aaaa!"),
    G(overlapping_classes(900), "urn:ogf:example:" + "a" * 4000),
    G(overlapping_classes(40), "urn:ogf:example:" + "a" * 4000),
    G(overlapping_classes(299, rules=True), "urn:ogf:example:" + "a" * 4000),
    G('a = *("a" / "b") "a" 20("a" / "b")\n', "urn:ogf:example:" + "ab" * 2000),
    G('a = *("a" / "b") "a" 60("a" / "b")\n', "urn:ogf:example:" + "ab" * 2000),
    G('a = *(%x21-7E) "a" 200(%x21-7E)\n', "urn:ogf:example:" + "a" * 4000),
]

MARKDOWN = [
    R("[", 10_000),
    R("[a](", 5_000),
    R("[", 100_000),
    R("# h\n", 25_000),
    R(">", 50_000),
    R("*", 50_000),
    R("`", 50_000),
    "".join("  " * i + "- x\n" for i in range(100)),
    RS("|a|\n|-|\n", "|x|\n", 20_000),
    R("<", 50_000),
    R("![", 30_000),
    R("_", 50_000),
    R("[x]: http://a\n", 5_000),
    R("&#", 30_000),
]

DOCUMENTS = [
    RS("Document: a", " ", 100_000, "b"),
    RS("Name: ", "a", 100_000),
    R("urn:", 50_000),
    R("urn:ogf:", 30_000),
    R("\\section{", 20_000),
    R("1.1 Namespace Identifier\n", 20_000),
    R("%", 100_000),
    R("\\begin{document}", 10_000),
    RS("Namespace ID: ", "x-", 50_000),
    RS("", "\u0000", 1_000, "Name: x"),
    RS("1.1 Namespace Identifier\n\nab\rBcc: x@example.org\n\n2.1 Syntax\n\n", "a = 64(", 10, '"x"' + ")" * 10),
]

SNID_INPUTS = [
    "ab\rBcc: x@example.org",
    "ab\nc",
    "a\u0000b",
    "a/b",
    "../x",
    "a b",
    "\u00e9",
    "a" * 33,
    "-a",
    "x\u200b",
    "a%2Fb",
    "<script>",
]

SEARCHES = ["a\u0000b", "\u0000", "a\u0001b", "%", "'", "\\", "a" * 10_000, "\u202e", "a\r\nb", "\u0000" * 500]

if __name__ == "__main__":
    cases = {
        "about": "Hostile inputs for tests/test_hostile.py; written by make_cases.py. "
        "{repeat, times} expands to a long string; {hex} is raw bytes.",
        "lookup": LOOKUPS,
        "validate_bodies": BODIES,
        "snid_paths": SNIDS,
        "form_fields": FORM,
        "huge_bodies": HUGE_BODIES,
        "interchange": INTERCHANGE,
        "grammars": GRAMMARS,
        "markdown": MARKDOWN,
        "documents": DOCUMENTS,
        "snid_inputs": SNID_INPUTS,
        "searches": SEARCHES,
    }
    path = Path(__file__).with_name("cases.json")
    path.write_text(json.dumps(cases, indent=1, ensure_ascii=True) + "\n")
    print(path, sum(len(v) for v in cases.values() if isinstance(v, list)), "cases")
