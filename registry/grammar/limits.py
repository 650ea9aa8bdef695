"""Every size limit of the grammar engine, in one place.

A registration's grammar is untrusted text. Each stage that reads it is
bounded by construction: the reader refuses text past these sizes with a
message naming the limit, and every intermediate the analysis builds (the
fixed prefix, generated test strings, the RE2 pattern and program) is capped
before it is built, not after. docs/security.md lists them with what the user
sees; the hard time and memory budget around all of it is registry.sandbox.
"""

from __future__ import annotations

#: Longest URN the registry checks (characters). Repetition counts and literals
#: beyond it cannot change which URNs a grammar accepts.
URN_MAX_LENGTH = 4096

#: The grammar text as a whole and its number of rules.
GRAMMAR_MAX_CHARS = 100_000
GRAMMAR_MAX_RULES = 300
#: One rule (its definition with continuation lines) and one rule name.
RULE_MAX_CHARS = 10_000
RULE_NAME_MAX_CHARS = 64
#: One quoted string or %x.. sequence; a longer one could never fit in a URN.
LITERAL_MAX_CHARS = URN_MAX_LENGTH
#: Alternatives of one alternation (``a / b / c ...``), and groups/options nested
#: inside one another.
ALTERNATIVES_MAX = 1_000
NESTING_MAX = 40
#: Digits of a repetition count or numeric value that are read at all.
NUMBER_MAX_DIGITS = 12
#: Repetition counts: an upper bound above this is read as "no upper bound" (the
#: URN length cap bounds it anyway); a lower bound above it is kept at
#: REPEAT_MAX + 1, which no URN can satisfy when each item takes a character.
REPEAT_MAX = URN_MAX_LENGTH
#: Highest Unicode code point (%x10FFFF).
CODE_POINT_MAX = 0x10FFFF

#: The fixed leading text the analysis extracts (only "urn:ogf:<snid>:" matters).
PREFIX_MAX_CHARS = 64

#: The RE2 translation: the pattern text, an estimate of the compiled program
#: (instructions, counting every copy a counted repetition makes) and the memory
#: RE2 itself may use for one program.
PATTERN_MAX_CHARS = 200_000
PROGRAM_MAX_SIZE = 200_000
RE2_MAX_MEM = 32 << 20

#: The cross-check against the reference ABNF parser: generated strings, their
#: length, the nodes one generated string may visit, and strings compared.
CROSSCHECK_SAMPLES = 40
CROSSCHECK_SAMPLE_MAX_CHARS = 120
CROSSCHECK_GENERATE_MAX_STEPS = 5_000
CROSSCHECK_MAX_STRINGS = 100
#: Work the reference parser may do for all its strings, in steps: one step is one call of
#: one of its combinators or one match it yields (real registrations need 5,000 to 25,000).
#: Counted, not timed, so where a comparison is cut short is a property of the grammar and
#: the same on an idle and a busy machine; at the slowest rate measured (about 120,000 steps
#: per second) it is half a second of CPU time, well inside the job's budget.
CROSSCHECK_STEPS = 60_000
#: CPU seconds after which the reference parser is stopped whatever its count: only a backstop
#: (a step costs a bounded amount of work, so the steps run out long before it).
CROSSCHECK_SECONDS = 1.5
#: Longest example the backtracking reference parser is given; longer ones are
#: compared by the RE2 validator only (and the finding says so).
CROSSCHECK_EXAMPLE_MAX_CHARS = 200
#: Largest grammar, and longest rule, as the ABNF text given to the reference
#: parser (whose reading time grows with the square of a rule's length) that is
#: cross-checked at all; real registrations are a tenth of this.
CROSSCHECK_GRAMMAR_MAX_CHARS = 6_000
CROSSCHECK_RULE_MAX_CHARS = 800

#: Railroad diagrams are drawn only for grammars of at most this many IR nodes
#: (real registrations have under a hundred); drawing and sanitising grows with it.
DIAGRAM_MAX_NODES = 1_000

#: What one match of a validator may cost, measured before the validator is trusted
#: (cost.py): CPU milliseconds for the costliest adversarial string of the maximum
#: length. RE2 is linear in the input, but the constant is the number of states its
#: DFA must build; a grammar of many overlapping counted alternatives overflows the
#: DFA's cache and falls back to the NFA (a millisecond per character and more). A
#: real registration's worst case is tens of microseconds.
MATCH_BUDGET_MS = 5.0
#: Locating where an invalid URN goes wrong (position.py) runs a few dozen matches of
#: a second program; past this budget per location a grammar's validator is kept, only
#: without error positions.
LOCATE_BUDGET_MS = 50.0
#: That second program (two RE2 programs: with and without capture groups) is compiled
#: once per worker, on the first invalid URN. Its cost is decided by its size, counted in
#: RE2 instructions, not by a stopwatch: a count is the same on a busy machine as on an
#: idle one, where a compile near any time limit would fall on either side of it by load.
#: About 1.5 µs of CPU per instruction here: 24,000 is some 35 ms, once.
LOCATOR_COMPILED_MAX = 24_000
#: The whole measurement of one grammar (all adversarial strings) stops past this
#: many CPU milliseconds; a grammar not measured in full is not proven cheap.
MEASURE_MAX_MS = 400.0
#: The error-position program is built only for validators of at most this many RE2
#: instructions (real registrations: a few hundred to a few thousand); larger ones
#: can take seconds to compile.
LOCATOR_PROGRAM_MAX = 60_000
