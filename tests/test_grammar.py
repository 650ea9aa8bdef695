"""The grammar engine: parsing, analysis, compiled validators, diagrams. No database."""

from __future__ import annotations

import time

import pytest

from registry.grammar import cache_clear, grammar_compile, grammar_diagrams, parse_urn
from registry.grammar.analysis import INFINITE
from registry.grammar.parse import parse_grammar

from .factories import demo_raw


def compiled_demo(name: str):
    raw = demo_raw(name)
    return raw, grammar_compile(
        raw["grammar"]["abnf"], raw["grammar"]["rule"], examples=raw["examples"]["valid"] + raw["examples"]["invalid"]
    )


def is_valid(compiled, urn: str) -> bool:
    return compiled.check(parse_urn(urn)) == []


# --- the seeds -----------------------------------------------------------------------------


def test_gfd191_example_accepts_its_valid_examples_and_upper_case_form():
    raw, compiled = compiled_demo("example")
    assert compiled.ok and compiled.full_urn
    assert [is_valid(compiled, u) for u in raw["examples"]["valid"]] == [True] * 4
    assert is_valid(compiled, "URN:OGF:Example:CLUSTER:2009:EXAMPLE.net:42")


def test_gfd191_example_rejects_mark1_and_missing_index():
    raw, compiled = compiled_demo("example")
    mark1, no_index, year_1949, percent_label = raw["examples"]["invalid"]
    assert (is_valid(compiled, mark1), is_valid(compiled, no_index)) == (False, False)


def test_gfd191_example_grammar_cannot_express_the_1949_rule():
    # URN 7 is invalid because "the domain name certainly did not exist in 1949": a
    # fact about the world, not the syntax, so the grammar accepts it and the
    # checklist warns (see test_checklist).
    raw, compiled = compiled_demo("example")
    assert is_valid(compiled, raw["examples"]["invalid"][2]) is True


def test_gfd191_example_grammar_rejects_the_percent_encoded_label():
    # URN 8's label is percent-encoded; LDH-LABEL admits only letters, digits and '-',
    # so the grammar itself rejects it.
    raw, compiled = compiled_demo("example")
    assert is_valid(compiled, raw["examples"]["invalid"][3]) is False


def test_gfd191_example_analysis():
    _, compiled = compiled_demo("example")
    analysis = compiled.analysis
    assert (analysis.prefix, analysis.min_length, analysis.max_length) == ("urn:ogf:example:", 25, INFINITE)
    assert analysis.reserved == ["%", "/", "?", "#"]
    assert analysis.outside_urn_chars == []
    assert [i.kind for i in compiled.issues] == ["prose-known"]


def test_fdc_accepts_its_three_examples_which_need_backtracking_in_label():
    raw, compiled = compiled_demo("fdc")
    assert compiled.ok and not compiled.full_urn
    assert [is_valid(compiled, u) for u in raw["examples"]["valid"]] == [True, True, True]
    assert compiled.crosscheck.disagreements == []


@pytest.mark.parametrize(
    ("sss", "valid"),
    [
        ("example.com:20040101:root", True),
        ("example.com:20040101:root:frag:ment", True),
        ("example.com:20041231:r%2Fx", True),
        ("example.com:20041301:root", False),  # month 13
        ("example.com:2004010:root", False),  # DateId needs 8 digits
        ("example.com:20040101:", False),  # empty IMGRootId
        ("-example.com:20040101:root", False),  # label cannot start with '-'
        ("example.c0m:20040101:root", True),
        ("example.com:20040101:root:", False),  # empty FragmentId
        ("example.com:20040101:ro/ot", False),  # "/" is a URN char, not an IMG one
    ],
)
def test_img_grammar_cases(sss, valid):
    _, compiled = compiled_demo("img")
    assert is_valid(compiled, f"urn:ogf:img:{sss}") is valid


def test_urn5_rejects_its_own_counter_example():
    raw, compiled = compiled_demo("urn-5")
    results = [is_valid(compiled, u) for u in raw["examples"]["valid"]]
    assert results == [True, True, False]  # "...:17": urn-string is one character


def test_newsml_redefines_core_char_and_scopes_it_locally():
    raw, compiled = compiled_demo("newsml")
    kinds = {(i.kind, i.severity, i.rule) for i in compiled.issues}
    assert ("core-redefinition", "warning", "char") in kinds
    assert [is_valid(compiled, u) for u in raw["examples"]["valid"]] == [True, True]


# --- parsing and analysis --------------------------------------------------------------------


def test_parse_reports_syntax_error_with_line_and_column():
    parsed = parse_grammar('a = "x" b\nb = "y" / \nc = "z"\n')
    assert [(i.kind, i.line, i.column) for i in parsed.issues] == [("syntax", 2, 9)]
    assert sorted(parsed.rules) == ["a", "c"]


def test_parse_points_at_non_ascii_character():
    parsed = parse_grammar('other = "(" / "’"\n')
    (issue,) = parsed.issues
    assert (issue.line, issue.column) == (1, 16)
    assert "U+2019" in issue.message


def test_parse_accepts_crlf_comments_continuations_and_indentation():
    text = "    a = b ; comment\r\n        / %x41.42\r\n    b = %d48-57 / %b1000001\r\n"
    parsed = parse_grammar(text)
    assert parsed.issues == []
    compiled = grammar_compile(text)
    assert [compiled.matches(s) for s in ("AB", "5", "A", "ab", "C")] == [True, True, True, False, False]


def test_case_sensitive_and_insensitive_strings():
    compiled = grammar_compile('a = %s"Ab" %i"cd" "ef"\n')
    assert [compiled.matches(s) for s in ("AbcdEF", "AbCDef", "abcdef")] == [True, True, False]


def test_undefined_and_unreachable_rules_are_reported_with_lines():
    compiled = grammar_compile('top = a b\na = "x"\nunused = "y"\n')
    found = [(i.kind, i.line, i.rule) for i in compiled.issues]
    assert found == [("undefined", 1, "top"), ("unreachable", 3, "unused")]


def test_same_meaning_core_redefinition_is_harmless():
    compiled = grammar_compile("a = 1*DIGIT\nDIGIT = %x30-39\n")
    assert [(i.kind, i.severity) for i in compiled.issues] == [("core-redefinition", "info")]


def test_different_core_redefinition_is_scoped_to_the_grammar():
    compiled = grammar_compile('a = 1*DIGIT\nDIGIT = %x30-39 / "_"\n')
    assert compiled.matches("1_2") is True
    assert grammar_compile("b = 1*DIGIT\n").matches("1_2") is False  # other grammars unaffected


def test_unknown_prose_is_reported_not_machine_checkable():
    compiled = grammar_compile("a = <any string the registrant likes>\n")
    assert [(i.kind, i.severity) for i in compiled.issues] == [("prose-unknown", "error")]
    assert compiled.matches("anything") is False


def test_recursion_is_reported_and_bounded():
    compiled = grammar_compile('list = "(" [list] ")"\n')
    assert {i.kind for i in compiled.issues} >= {"recursion", "recursion-bounded"}
    assert compiled.matches("((()))") is True
    assert compiled.matches("(" * 50 + ")" * 50) is False  # deeper than the bound


@pytest.mark.parametrize(
    ("text", "minimum", "maximum"),
    [
        ('a = "ab" 2*3"c"\n', 4, 5),
        ("a = 1*DIGIT\n", 1, INFINITE),
        ('a = *2("x" / "yy") [ "z" ]\n', 0, 5),
    ],
)
def test_length_bounds(text, minimum, maximum):
    analysis = grammar_compile(text).analysis
    assert (analysis.min_length, analysis.max_length) == (minimum, maximum)


def test_characters_outside_urn_chars_are_listed():
    analysis = grammar_compile('a = "a" / " " / %x7E\n').analysis
    assert analysis.outside_urn_chars == ["U+0020", "'~'"]


def test_top_rule_that_does_not_exist_is_an_error():
    compiled = grammar_compile('a = "x"\n', "nope")
    assert [i.kind for i in compiled.issues] == ["top-rule"]
    assert not compiled.ok


def test_compiled_grammars_are_cached_by_content():
    first = grammar_compile('a = "cache-me"\n')
    assert grammar_compile('a = "cache-me"\n') is first
    assert grammar_compile('a = "cache-me" \n') is not first


# --- hostile input ---------------------------------------------------------------------------


def _cpu() -> float:
    """CPU seconds this thread and the bounded jobs it ran have used: the work, which a loaded
    machine does not stretch (the wall clock is asserted only against a hang, ``HANG``)."""
    from registry import sandbox

    return time.thread_time() + sandbox.jobs_cpu_seconds()


@pytest.mark.budget
def test_nested_star_grammar_on_long_input_is_linear():
    compiled = grammar_compile('a = *( *"a" ) "b"\n')
    started = _cpu()
    assert compiled.matches("a" * 4000 + "c") is False
    assert compiled.matches("a" * 4000 + "b") is True
    assert _cpu() - started < 0.5


@pytest.mark.budget
def test_nested_star_grammar_on_10000_characters_is_refused_by_the_cap():
    compiled = grammar_compile('a = *( *"a" ) "b"\n')
    started = _cpu()
    assert compiled.matches("a" * 9_999 + "b") is False
    assert _cpu() - started < 0.01
    assert compiled.length_cap == 4096


def test_100kb_urn_is_rejected_with_a_clear_message():
    from registry.grammar import UrnSyntaxError

    with pytest.raises(UrnSyntaxError, match="at most 4096"):
        parse_urn("urn:ogf:example:" + "a" * 100_000)


@pytest.mark.budget
def test_grammar_of_5000_rules_is_refused_at_once():
    text = "\n".join(f'r{i} = r{i + 1} / "{i % 10}"' for i in range(4_999)) + '\nr4999 = "x"\n'
    started = _cpu()
    compiled = grammar_compile(text)
    assert _cpu() - started < 1
    assert [i.kind for i in compiled.issues] == ["too-large"]
    assert "5,000 rules" in compiled.issues[0].message and not compiled.ok


def test_grammar_over_the_size_limit_is_refused_at_once():
    compiled = grammar_compile('a = "x"\n' + ";" * 100_000 + "\n")
    assert [i.kind for i in compiled.issues] == ["too-large"]
    assert "at most 100,000 characters" in compiled.issues[0].message


@pytest.mark.budget
def test_deeply_chained_grammar_at_the_rule_limit_is_answered_quickly():
    from registry.grammar.parse import MAX_RULES

    text = "\n".join(f'r{i} = r{i + 1} / "{i % 10}"' for i in range(MAX_RULES - 1))
    text += f'\nr{MAX_RULES - 1} = "x"\n'
    started = _cpu()
    compiled = grammar_compile(text)
    assert _cpu() - started < 2
    assert compiled.ok or [i.kind for i in compiled.errors] == ["too-complex"]
    if compiled.ok:
        assert compiled.matches("x") and compiled.matches("3")


def test_repetition_above_re2_limit_is_split():
    compiled = grammar_compile('a = 1500"x"\n')
    assert compiled.ok
    assert (compiled.matches("x" * 1500), compiled.matches("x" * 1499)) == (True, False)


def test_exponential_grammar_is_refused_not_hung():
    rules = ['r0 = "a" / "b"'] + [f"r{i} = r{i - 1} r{i - 1} / r{i - 1}" for i in range(1, 40)]
    compiled = grammar_compile("\n".join(reversed(rules)) + "\n")
    assert [i.kind for i in compiled.issues if i.severity == "error"] == ["too-complex"]
    assert not compiled.ok


# --- diagrams ----------------------------------------------------------------------------------


def test_diagrams_draw_every_rule_as_svg():
    raw, compiled = compiled_demo("example")
    diagrams = grammar_diagrams(compiled.parsed.rules)
    assert [name for name, _ in diagrams][:3] == ["EXAMPLE-URN", "SNID", "TYPE"]
    assert all(svg.startswith("<svg") for _, svg in diagrams)
    assert 'href="#rule-snid"' in diagrams[0][1]


def test_diagrams_escape_grammar_text():
    compiled = grammar_compile('a = "<script>"\n')
    ((_, svg),) = grammar_diagrams(compiled.parsed.rules)
    assert "<script" not in svg and "&lt;script" in svg  # "<" escaped: no tag can open


# --- limits by construction (registry/grammar/limits.py) ---------------------------------------


def _chain(rules: int) -> str:
    return "\n".join([f"r{n} = 2r{n - 1}" for n in range(rules - 1, 0, -1)] + ['r0 = "x"']) + "\n"


@pytest.mark.budget
@pytest.mark.parametrize(
    ("text", "kind", "says"),
    [
        ("a = %x110000\n", "syntax", "the value 110000 is above %x10FFFF, the highest Unicode code point"),
        ("a = %d1e25\n", "syntax", "column 8, in rule 'a': cannot read the grammar from here: 'e25'"),
        ("a = 1*%x0-FFFFFFFF\n", "syntax", "the value FFFFFFFF is above %x10FFFF"),
        ("a = %x" + "F" * 5000 + "\n", "syntax", "is above %x10FFFF"),
        ("a = %x41-30\n", "syntax", "the range ends below where it starts"),
        ('a = 5*3"x"\n', "syntax", "asks for more items at least than at most"),
        ('a = 64(64(64(64(64"x"))))\n', "too-complex", "more than the registry's limit of 200,000"),
        (_chain(300), "too-complex", "more than the registry's limit of 200,000"),
        (
            'a = "' + "x" * 5_000 + '"\n',
            "syntax",
            "the quoted string is 5,000 characters long; the registry reads strings of at most 4,096",
        ),
        ("a = " + " / ".join(['"x"'] * 1_001) + "\n", "syntax", "more than 1,000 alternatives"),
        (
            "a" * 50_000 + ' = "x"\n',
            "too-large",
            "the rule is 50,006 characters long; the registry reads rules of at most 10,000",
        ),
        ("a" * 65 + ' = "x"\n', "syntax", "the rule name is 65 characters long"),
        ("a = " + "(" * 41 + '"x"' + ")" * 41 + "\n", "syntax", "nested more than 40 levels deep"),
        ('a = 100000000000000000000*"x"\n', "too-large", "at least 4,097 characters long, more than the 4,096"),
        ('a = "x\n', "syntax", "a quoted string must end on the same line"),
        ("a = <unclosed\n", "syntax", "a prose value <...> must end with '>'"),
        ("a = %q41\n", "syntax", "'%' must be followed by b, d or x"),
    ],
)
def test_hostile_grammar_gets_a_clear_error_at_once(text, kind, says):
    cache_clear()
    started = _cpu()
    compiled = grammar_compile(text)
    assert _cpu() - started < 2
    assert not compiled.ok or kind == "too-large"
    found = [i for i in compiled.errors if i.kind == kind]
    assert found and says in found[0].message, [i.message for i in compiled.errors]


def test_large_repetition_counts_are_exact_within_the_length_cap():
    compiled = grammar_compile("a = 1*2001ALPHA\n")
    assert compiled.ok and compiled.errors == []
    assert (compiled.matches("a" * 2001), compiled.matches("a" * 2002)) == (True, False)


def test_nested_counts_re2_would_refuse_are_written_out():
    compiled = grammar_compile('a = 3(40(30"x"))\n')  # product 3,600 > RE2's 1,000
    assert compiled.ok
    assert (compiled.matches("x" * 3600), compiled.matches("x" * 3599)) == (True, False)


def test_upper_bound_past_the_urn_length_means_no_upper_bound():
    compiled = grammar_compile('a = 1*99999999999999999999"x"\n')
    assert compiled.ok and compiled.matches("x" * 4000)


def test_prefix_is_capped_however_counts_multiply():
    compiled = grammar_compile('a = 64(64(64"ab")) "c"\n')
    assert len(compiled.analysis.prefix) == 64


@pytest.mark.budget
def test_reading_abnf_is_linear_in_the_length_of_a_rule():
    def seconds(n):
        """CPU time of this thread (the work, not the machine's load), best of five, for a rule of
        ``n`` alternatives read ten times over (long enough for the clock's resolution)."""
        text = "a = " + " ".join(['"x" / b'] * n) + ' "z"\nb = "y"\n'
        best = float("inf")
        for _ in range(5):
            started = time.thread_time()
            for _ in range(10):
                parse_grammar(text)
            best = min(best, time.thread_time() - started)
        return best

    small, large = seconds(100), seconds(1_000)
    assert large < small * 40  # ten times the text: linear is about 10 times the work, quadratic 100


def _work(call):
    """(result, CPU seconds of this thread and of its bounded jobs, wall seconds): the budgets
    measure work, so a loaded machine stretches only the wall time."""
    from registry import sandbox

    started, cpu, jobs = time.perf_counter(), time.thread_time(), sandbox.jobs_cpu_seconds()
    result = call()
    work = time.thread_time() - cpu + sandbox.jobs_cpu_seconds() - jobs
    return result, work, time.perf_counter() - started


#: Wall seconds: only a hang takes this long, however busy the machine (the work is asserted in CPU time).
HANG = 300.0


@pytest.mark.budget
def test_backtracking_cross_check_is_cut_short_by_its_step_limit_not_passed():
    cache_clear()
    compiled, work, wall = _work(lambda: grammar_compile('a = *(*"x" *"x" *"x") "y"\n', examples=("x" * 150 + "z",)))
    assert work < 2 and wall < HANG
    assert compiled.ok
    assert compiled.crosscheck.cut_short == (
        "the reference ABNF parser reached its limit of 60,000 steps of work after 0 test string(s)"
    )
    assert not compiled.crosscheck.load_dependent  # counted work: the same on any machine, so it is shared


def test_examples_too_long_for_the_reference_parser_are_said_to_be_skipped():
    cache_clear()
    compiled = grammar_compile('a = 1*"x"\n', examples=("x" * 300,))
    assert compiled.crosscheck.skipped == ("1 example(s) longer than 200 characters were checked by the validator only")


@pytest.mark.budget
def test_grammar_check_over_the_job_budget_is_an_error_naming_the_limit(settings):
    settings.REGISTRY_JOB_SECONDS = 0.1  # less than the cross-check's steps take on any machine
    cache_clear()
    compiled, work, wall = _work(lambda: grammar_compile('a = *(*"x" *"x" *"x") "y"\n', examples=("x" * 150 + "z",)))
    assert work < 1.5 and wall < HANG
    assert not compiled.ok
    assert [i.message for i in compiled.errors] == [
        "This grammar is too complex to check within the registry's limits (0.1 s CPU / 512 MB): it "
        "needed more than 0.1 s of CPU time. Simplify it, or split it into smaller parts."
    ]
    assert list(compiled.parsed.rules) == ["a"]  # the rules are still read, for the pages
    cache_clear()


@pytest.mark.budget
def test_gfd191_example_compiles_and_checks_well_under_a_second():
    cache_clear()
    started = _cpu()
    raw, compiled = compiled_demo("example")
    assert _cpu() - started < 0.8
    assert compiled.ok and compiled.crosscheck.checked >= 90 and not compiled.crosscheck.cut_short


def test_diagram_collapses_character_alternatives_into_a_class():
    from registry.grammar.parse import parse_grammar

    rules = parse_grammar('hexDigit = DIGIT / "a" / "b" / "c" / "d" / "e" / "f"\nbits = %x30 / %x31 / %x32-39\n').rules
    (_, hex_svg), (_, bits_svg) = grammar_diagrams(rules)[:2]  # then the core-rule legend
    assert (hex_svg.count('class="terminal char-class"'), ">A–F a–f</text>" in hex_svg) == (1, True)
    assert ">0–9</text>" in bits_svg and ">0</text>" not in bits_svg


def test_wide_diagram_wraps_to_the_column_and_scales():
    import re

    from registry.grammar.diagrams import WRAP_WIDTH
    from registry.grammar.parse import parse_grammar

    rules = parse_grammar('uuid = 8HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 12HEXDIG\n').rules
    ((_, svg),) = grammar_diagrams(rules)[:1]  # then the core-rule legend
    width = float(re.search(r'width="([\d.]+)"', svg).group(1))
    assert width <= WRAP_WIDTH
    assert f'viewBox="0 0 {re.search(r"width=.([0-9.]+)", svg).group(1)}' in svg


@pytest.mark.parametrize(
    ("text", "limit", "shown"),
    [
        ("Year in Gregorian calendar", 16, "Year in…"),
        ("Year in Gregorian calendar", 26, "Year in Gregorian calendar"),
        ("Year in Gregorian calendar", 18, "Year in Gregorian…"),  # the word ends right at the room: kept
        ("urn:ogf:example:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 16, "urn:ogf:example…"),  # one token: cut inside
    ],
)
def test_clip_words_cuts_after_a_whole_word(text, limit, shown):
    from registry.grammar.clip import clip_words

    assert clip_words(text, limit) == shown and len(shown) <= limit


def test_a_syntax_error_quotes_its_line_cut_at_a_word_end():
    (issue,) = parse_grammar("YEAR = 4DIGIT ) Year in Gregorian calendar, four digits\n").issues
    assert issue.message.endswith(": ') Year in Gregorian…'.")
