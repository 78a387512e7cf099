"""Screening of generated Lean before any engine evaluates it.

Model-written code, specs and proofs, and LLM-written adversaries, are untrusted text. Before an
engine elaborates or evaluates them, :func:`screen_lean` rejects every construct that could fool a
scorer or escape the sandbox; every engine made by ``veriscale.backends.select.make_backend`` sits
behind a gate (``veriscale.backends.gate``) that applies it to every generated or submitted
section it is handed. The screen is a token-level rule set over the shared Lean lexer
(:mod:`veriscale.lean.lexer`, the one the engine and the values reader use), no parser: what is
code, comment or literal is decided by Lean's own lexical rules, so a ``#exit`` or ``sorry`` hidden
or revealed by hostile comment nesting is judged as Lean reads it. Where Lean's reading depends on
more than lexing, the screen is *conservative*: it reads every string after a ``name!``,
``throwError``-like name or ``trace[...]`` as interpolated (so the code in its braces is checked),
and rejects what it cannot settle.

Policy, by rule id (each :class:`Finding` carries one):

``exit-command``
    ``#exit``: Lean stops reading the file and reports success, skipping the tests that follow.
``eval-command``
    ``#eval``/``#eval!``/``#reduce``/``#guard``/``#whnf`` and the ``eval%`` term: they run code
    while elaborating (IO included) or print results a harness could mistake for its own.
``hash-command``
    Every other ``#`` command (``#print``, ``#check``, ``#synth``, ``#guard_msgs``...): they only
    print, but printed text can be mistaken for results, and generated code never needs them.
``sorry``
    ``sorry``, ``admit``, ``sorryAx``, the ``stop`` tactic, ``plausible``/``slim_check`` (both
    close the goal with ``sorry`` when they find no counterexample).
``axiom``
    ``axiom`` declarations and core's ``lcProof`` axiom: anything follows from an assumption.
``native-decide``
    ``native_decide``, ``decide +native``, ``native := true`` (also spelt ``«native»``: a config
    item is an identifier, so Lean reads the escaped name as the option), ``bv_decide`` and the
    ``ofReduceBool``/``ofReduceNat``/``trustCompiler`` axioms: they trust compiled code.
``decide-config``
    ``decide (config := ...)`` (also ``native_decide``/``decide!``): a configuration given as a
    structure value can set ``native`` without naming it (``⟨false, true, true, true⟩``, ``.mk``,
    a definition elsewhere). Lean v4.24's ``DecideConfig`` has ``kernel``, ``native``,
    ``zetaReduce`` and ``revert``; the named forms ``+kernel``/``(kernel := true)`` stay allowed
    (the kernel still checks the proof; only ``native`` leaves it to compiled code).
``set-option``
    Any ``set_option`` (also ``set_option ... in``), anywhere. Lean v4.24's options include ones
    that change what is checked (``debug.skipKernelTC`` turns the kernel's type checking off,
    ``debug.proofAsSorry``/``debug.byAsSorry`` replace proofs by ``sorry``), remove the limits
    a run depends on (``maxHeartbeats 0``, ``maxRecDepth``, ``synthInstance.maxHeartbeats``,
    ``exponentiation.threshold``), or change elaboration (``backward.*``, ``Elab.async``,
    ``pp.*`` changes what ``#eval`` prints). No option is needed by generated code, so the
    command is rejected whatever the option; ``«set_option»`` is an identifier, not the command.
``file-read``
    ``include_str``: it evaluates its argument to a path and reads that file while elaborating,
    so what the code means depends on the machine's files (and can smuggle in their content).
``concurrency``
    ``Task`` (``Task.spawn``, ``Task.map``, ``Task.bind``, ``Task.Priority``...) and the
    task-starting IO functions (``IO.asTask``, ``BaseIO.asTask``, ``EIO.asTask``, ``IO.mapTask``,
    ``IO.mapTasks``, ``IO.bindTask``...): threads whose work runs outside the check that started
    them, beyond its time and memory accounting; generated code has no need for them.
``unsafe``
    The ``unsafe`` keyword and any name containing ``unsafe`` (``unsafeCast``, ``unsafeIO``,
    ``unsafeBaseIO``, ``ptrAddrUnsafe``...), pointer identity (``ptrEq``, ``withPtrEq``...) and
    compiler internals (``lcCast``, ``lcUnreachable``).
``partial``
    ``partial def`` and ``partial_fixpoint``: the kernel sees an opaque constant whose
    termination nobody checked; a scorer must not accept such a definition (it can loop forever,
    and ``decide`` cannot see through it).
``io``
    Any name with an ``IO``/``EIO``/``BaseIO`` component, the ``System`` namespace, ``timeit``,
    ``allocprof``. (``ST``/``runST`` is pure and allowed.)
``debug-side-effect``
    ``dbg_trace``, ``dbgTrace*``, ``dbgSleep``, ``dbgStackTrace``: output or delays from pure code.
    ``panic!``/``unreachable!`` are allowed: they evaluate to ``default`` (the kernel agrees) and the
    reference solutions use them.
``implementation-override``
    Attributes that make compiled code differ from what the kernel checked: ``extern``,
    ``implemented_by``, ``export``, ``csimp``, ``init``, ``builtin_init``, ``never_extract``; and
    Mathlib's ``compile_inductive%``/``compile_def%``.
``attribute``
    Any ``@[...]`` attribute outside a small allowlist (``reducible``, ``irreducible``,
    ``semireducible``, ``inline``, ``noinline``, ``always_inline``, ``specialize``, ``simp``,
    ``grind``, ``ext``, ``match_pattern``, ``deprecated``), and the ``attribute [...]`` command with
    anything but ``simp``/``grind``, and ``seal``/``unseal`` (they change *existing*, i.e.
    ground-truth, declarations).
``instance-override``
    Every ``instance`` (also ``local``/``scoped``), ``@[instance]``, ``@[default_instance]``,
    ``attribute [instance]``, ``deriving instance ... for``, ``deriving`` on a ``def``/``abbrev``,
    and ``class`` declarations. All instances are rejected, not a list of classes: an instance of
    *any* class the ground-truth spec uses (``BEq``, ``LT``, ``Decidable``, ``HAdd``,
    ``Membership``, ``GetElem``, ``Repr``...) changes what the spec means, and an ``abbrev`` makes an
    instance for a "new" type apply to an old one. A ``deriving`` clause on the snippet's own
    ``structure``/``inductive`` is allowed (it only concerns the new type). Term-level ``letI``/
    ``haveI`` are allowed: they are scoped to the model's own term.
``syntax-extension``
    ``macro``, ``macro_rules``, ``syntax``, ``notation``/``notation3``, ``infix``/``infixl``/
    ``infixr``, ``prefix``, ``postfix``, ``declare_syntax_cat``, ``binder_predicate``,
    ``unif_hint``: they change how the following (ground-truth) text is read.
``meta-programming``
    ``elab``/``elab_rules``, ``run_cmd``/``run_elab``/``run_meta``/``run_tac``, ``by_elab``,
    ``initialize``/``builtin_initialize``, simprocs, ``register_*``/``declare_*`` commands,
    backtick name literals and syntax quotations, ``trace[...]``, and any name in the ``Lean``
    namespace except a few data structures (``Lean.RBMap``, ``Lean.HashMap``...). ``open Lean`` and
    ``namespace Lean`` fall under this rule through the name ``Lean``.
``import``
    ``import`` (unless the caller allows that module) and ``prelude``.
``opaque``
    ``opaque`` declarations: they hide a definition from the kernel; generated code needs none.
``unbalanced-scope``
    ``namespace``/``section``/``mutual`` not closed inside the snippet, or an ``end`` closing a
    scope the snippet did not open: either leaks into the ground-truth code that follows.
``scope-leak``
    ``variable``/``include``/``omit`` outside a ``section``/``namespace`` of the snippet (e.g.
    ``variable (h : False)`` + ``include h`` silently adds a false hypothesis to the ground-truth
    theorem), and ``export`` (aliases names into the ground truth's scope).
``benchmark-marker``
    A ``!benchmark`` marker in a comment of a *section* (``context="section"``): writing the task
    back and re-reading it would move the section boundaries.
``invisible-character``
    Bidirectional controls, zero-width and other format characters, or non-ASCII spaces in code or
    comments, and characters a reader takes for a line break inside comments (U+2028, form feed:
    Lean ends a line comment only at ``\n``); allowed inside string and character literals.
``lex-error``
    Every lexical error Lean would report (unterminated comment, string or ``«``, invalid escape,
    unclosed interpolation, a tab or lone carriage return between tokens), an unclosed attribute
    list, and a comment glued to a symbol (``x +-- c``): whether Lean reads a comment there depends
    on the tokens its imports declare.

Deliberately allowed: ``open X`` and ``open X in`` (unless ``X`` trips a name rule), ``theorem``,
``decide`` (also ``+kernel``/``(kernel := true)``, ``decide := true`` in ``simp``: the kernel checks), ``exact?``,
``termination_by``, ``decreasing_by``, ``let rec``, ``where``, ``mutual``, ``structure``,
``inductive``, ``noncomputable``, ``private``/``protected``, and new names in existing namespaces
(``def List.mySum``): Lean refuses to redeclare an existing constant, so ``def Nat.add`` is an
elaboration error, never a silent override. Lookalike characters (Cyrillic ``ѕorry``, fullwidth
``＃exit``) are not keywords for Lean either, so they are not treated as such; guillemet names
(``«#exit»``, ``«sorry»``) are identifiers for Lean, never the command or the keyword, but the
*name* rules still see through them (``«IO».println``, ``«sorryAx»``).

The screen assumes the harness treats any Lean error as a failure: after a parse error Lean
resynchronises at the next command keyword, so text past an error still gets elaborated.
"""

from __future__ import annotations

import bisect
import unicodedata
import warnings
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from veriscale.lean.lexer import (
    DOTIDENT,
    EOF,
    ERROR,
    FIELD,
    IDENT,
    INTERP,
    KEYWORD,
    SYM,
    InterpPiece,
    LexResult,
    Token,
    lex,
)

__all__ = [
    "RULE_REASONS",
    "Finding",
    "LexResult",
    "ScreenContext",
    "ScreenResult",
    "format_findings",
    "lex_for_screen",
    "screen_file",
    "screen_lean",
    "screen_sections",
]

ScreenContext = Literal["section", "file"]
"""``section``: a section body (or several commands) spliced into a task file; ``file``: a whole
generated file, which may legitimately carry ``-- !benchmark`` markers."""


# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------

RULE_REASONS: dict[str, str] = {
    "exit-command": "`#exit` makes Lean stop reading the file and report success, so every check "
    "after it is silently skipped",
    "eval-command": "runs code while elaborating (it can do IO or print results a harness could "
    "mistake for its own); generated code must not execute anything itself",
    "hash-command": "`#` commands print into Lean's output, which a harness could mistake for "
    "results; generated code never needs them",
    "sorry": "leaves a goal or value unproved (sorry, admit, sorryAx, stop, plausible): Lean only warns",
    "axiom": "adds an unproved assumption, from which anything can be proved",
    "native-decide": "trusts compiled code instead of the kernel, so a compiler bug or an "
    "implementation override becomes a proof",
    "set-option": "changes Lean's options (limits, checks such as debug.skipKernelTC, printing); "
    "generated code must run under the harness's settings",
    "decide-config": "a decide configuration given as a structure value can turn on `native` "
    "without naming it; use `decide +kernel` or `(kernel := true)`",
    "file-read": "`include_str` reads a file while elaborating, so the code's meaning depends on "
    "the machine's files",
    "concurrency": "starts tasks (threads) whose work runs outside the check that started them, "
    "beyond its time and memory limits",
    "unsafe": "unsafe code and pointer tricks bypass the type system and the kernel",
    "partial": "the definition's termination is never checked: the kernel sees an opaque "
    "constant and evaluation may loop forever",
    "io": "performs input/output (files, processes, environment, clock)",
    "debug-side-effect": "prints or sleeps from pure code, which can inject fake results into "
    "the output or stall the run",
    "implementation-override": "makes the code that actually runs differ from what the kernel checked",
    "attribute": "attribute outside the screen's allowlist; it may change how definitions "
    "elaborate, reduce or run",
    "instance-override": "declares or activates a type class instance (or class), which can "
    "change how ==, <, decide, Repr or ToString behave in the ground-truth checks",
    "syntax-extension": "defines new syntax or notation, which changes what the following "
    "(ground-truth) text means",
    "meta-programming": "reaches Lean's meta-programming layer, which can run arbitrary code "
    "while elaborating",
    "import": "imports are fixed by the task; generated code must not add any",
    "opaque": "an opaque constant hides its definition from the kernel; generated code has no use for one",
    "unbalanced-scope": "namespace/section/mutual must be closed by a matching `end` inside the "
    "same snippet; otherwise the scope leaks into the ground-truth code that follows",
    "scope-leak": "leaks into the ground-truth code that follows (e.g. `variable (h : False)` "
    "with `include h` adds a false hypothesis to the theorem)",
    "benchmark-marker": "a `!benchmark` marker inside generated text would move the section "
    "boundaries when the task file is written back and re-read",
    "invisible-character": "invisible or bidirectional-control characters make the code read "
    "differently from what Lean sees",
    "lex-error": "the screen cannot read this the way Lean would; rejected rather than guessed",
}

_EXECUTING_HASH_COMMANDS = frozenset(
    {
        "eval", "eval!", "reduce", "guard", "guard_expr", "whnf", "exec", "test", "sample",
        "time", "norm_num", "simp", "conv", "find", "decide",
    }
)  # fmt: skip

# `name%` elaborators and commands (the `%` glued to the name).
_PERCENT_ELABORATORS: dict[str, str] = {
    "eval": "eval-command",
    "compile_inductive": "implementation-override",
    "compile_def": "implementation-override",
    "gen_injective_theorems": "meta-programming",
}

# Single (unqualified, unescaped) identifiers that are Lean keywords or tactic names.
_KEYWORD_RULES: dict[str, str] = {
    "sorry": "sorry",
    "admit": "sorry",
    "plausible": "sorry",
    "slim_check": "sorry",
    "axiom": "axiom",
    "native_decide": "native-decide",
    "bv_decide": "native-decide",
    "set_option": "set-option",
    "unsafe": "unsafe",
    "partial": "partial",
    "partial_fixpoint": "partial",
    "dbg_trace": "debug-side-effect",
    "opaque": "opaque",
    "import": "import",
    "prelude": "import",
    "export": "scope-leak",
    "seal": "attribute",
    "unseal": "attribute",
    "instance": "instance-override",
    "class": "instance-override",
    "macro": "syntax-extension",
    "macro_rules": "syntax-extension",
    "syntax": "syntax-extension",
    "notation": "syntax-extension",
    "notation3": "syntax-extension",
    "infix": "syntax-extension",
    "infixl": "syntax-extension",
    "infixr": "syntax-extension",
    "prefix": "syntax-extension",
    "postfix": "syntax-extension",
    "declare_syntax_cat": "syntax-extension",
    "binder_predicate": "syntax-extension",
    "unif_hint": "syntax-extension",
    "elab": "meta-programming",
    "elab_rules": "meta-programming",
    "run_cmd": "meta-programming",
    "run_elab": "meta-programming",
    "run_meta": "meta-programming",
    "run_tac": "meta-programming",
    "by_elab": "meta-programming",
    "initialize": "meta-programming",
    "builtin_initialize": "meta-programming",
    "simproc": "meta-programming",
    "dsimproc": "meta-programming",
    "simproc_decl": "meta-programming",
    "dsimproc_decl": "meta-programming",
    "builtin_simproc": "meta-programming",
    "builtin_dsimproc": "meta-programming",
    "declare_config_elab": "meta-programming",
    "declare_command_config_elab": "meta-programming",
    "declare_simp_like_tactic": "meta-programming",
    "register_simp_attr": "meta-programming",
    "register_option": "meta-programming",
    "register_builtin_option": "meta-programming",
    "register_label_attr": "meta-programming",
    "register_tactic_tag": "meta-programming",
    "include_str": "file-read",
}

# Name components (of any identifier, escaped or not, qualified or not) and their rule.
_NAME_COMPONENT_RULES: dict[str, str] = {
    "IO": "io",
    "EIO": "io",
    "BaseIO": "io",
    "timeit": "io",
    "allocprof": "io",
    "sorryAx": "sorry",
    "lcProof": "axiom",
    "ofReduceBool": "native-decide",
    "ofReduceNat": "native-decide",
    "reduceBool": "native-decide",
    "reduceNat": "native-decide",
    "trustCompiler": "native-decide",
    "ptrEq": "unsafe",
    "ptrEqList": "unsafe",
    "ptrAddr": "unsafe",
    "withPtrEq": "unsafe",
    "withPtrAddr": "unsafe",
    "lcCast": "unsafe",
    "lcUnreachable": "unsafe",
    "dbgTrace": "debug-side-effect",
    "dbgTraceIfShared": "debug-side-effect",
    "dbgTraceVal": "debug-side-effect",
    "dbgStackTrace": "debug-side-effect",
    "dbgSleep": "debug-side-effect",
    "Task": "concurrency",
    "asTask": "concurrency",
    "mapTask": "concurrency",
    "mapTasks": "concurrency",
    "bindTask": "concurrency",
}

# First components that open a forbidden namespace.
_NAME_ROOT_RULES: dict[str, str] = {"System": "io", "Lean": "meta-programming"}

# `Lean.X` data structures that honest code written for older Lean versions uses.
_LEAN_DATA_NAMES = frozenset(
    {"RBMap", "RBTree", "HashMap", "HashSet", "AssocList", "PersistentHashMap", "PersistentHashSet",
     "Rat", "mkRBMap", "mkHashMap", "mkHashSet"}
)  # fmt: skip

_ALLOWED_ATTRIBUTES = frozenset(
    {"reducible", "irreducible", "semireducible", "inline", "noinline", "always_inline",
     "specialize", "simp", "grind", "ext", "match_pattern", "deprecated"}
)  # fmt: skip
# The `attribute [...] names` command changes declarations that already exist (ground truth
# included), so it gets a narrower allowlist: only the sound proof-automation sets.
_ALLOWED_ATTRIBUTE_COMMAND = frozenset({"simp", "grind"})
_IMPLEMENTATION_ATTRIBUTES = frozenset(
    {"extern", "implemented_by", "export", "csimp", "init", "builtin_init", "never_extract"}
)
_INSTANCE_ATTRIBUTES = frozenset({"instance", "default_instance"})

_DECLARATION_KEYWORDS = frozenset(
    {"def", "theorem", "lemma", "abbrev", "structure", "inductive", "class", "instance", "example",
     "opaque", "axiom"}
)  # fmt: skip
_DERIVING_TARGETS = frozenset({"structure", "inductive"})

# Macros whose string argument is an interpolated string (its `{...}` parts are code).
_INTERPOLATING_NAMES = frozenset(
    {"throwError", "throwErrorAt", "throwNamedError", "throwNamedErrorAt", "dbg_trace",
     "logInfo", "logWarning", "logError"}
)  # fmt: skip
# `!` macros that take an ordinary term: their string argument is a plain string.
_PLAIN_BANG_NAMES = frozenset({"panic!", "assert!", "unreachable!"})
# Tactics configured by a `DecideConfig` (which has the `native` field).
_DECIDE_TACTICS = frozenset({"decide", "decide!", "native_decide"})
# What may precede a tactic in a tactic block (so that `stop` there is the tactic).
_TACTIC_SEPARATORS = frozenset({"by", ";", "·", ".", ">", "<;>", "(", "|"})


# ---------------------------------------------------------------------------------------------
# Reading: the shared Lean lexer, and what the screen adds to it
# ---------------------------------------------------------------------------------------------

# After one of these symbols a `--` or `/-` certainly starts a comment; after other symbol
# characters a longer token the lexer's table does not know (one from an imported library) might
# swallow the `-` or `/`, and then Lean would read code where the lexer sees a comment.
_CLOSING_SYMBOLS = frozenset(")]},;")

# Characters a reader takes for a line break although Lean does not (only "\n" ends a line
# comment); inside a comment they make the text after them look like code.
_FALSE_LINE_BREAKS = frozenset("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")

_OPENING_BRACKETS = frozenset({"@[", "[", "#[", "%["})


def _is_odd_character(c: str) -> bool:
    """Invisible or confusable-by-layout characters: format (Cf), separators, other controls."""
    if c in " \n\t\r":
        return False
    category = unicodedata.category(c)
    return category in ("Cf", "Zs", "Zl", "Zp", "Cc", "Co", "Cn")


def _word(tok: Token) -> str | None:
    """The reserved word or plain one-component name ``tok`` spells (never a «quoted» name)."""
    if tok.kind == KEYWORD:
        return str(tok.value)
    if tok.kind == IDENT and not tok.escaped and len(tok.parts) == 1:
        return tok.parts[0]
    return None


def _opening_bracket(tokens: Sequence[Token], close: int) -> int | None:
    """Index of the bracket that the ``]`` at ``close`` closes."""
    depth = 0
    for k in range(close, -1, -1):
        tok = tokens[k]
        if tok.is_sym("]"):
            depth += 1
        elif tok.kind == SYM and tok.value in _OPENING_BRACKETS:
            depth -= 1
            if depth == 0:
                return k
    return None


def _interpolated_after(tokens: Sequence[Token]) -> bool:
    """Which strings the screen reads as interpolated, beyond Lean's ``s!``/``f!``/``m!``.

    Lean decides this by grammar (``throwError "..{x}.."`` parses the string as interpolated);
    the screen reads every string after such a name, after any other ``name!``, and after
    ``trace[cls]`` as interpolated, so that the code in its braces is screened."""
    if not tokens:
        return False
    last = tokens[-1]
    word = _word(last)
    if word is not None:
        if word in _INTERPOLATING_NAMES:
            return True
        return last.kind == IDENT and word.endswith("!") and word not in _PLAIN_BANG_NAMES
    if last.is_sym("]"):
        opener = _opening_bracket(tokens, len(tokens) - 1)
        if opener is not None and opener > 0 and tokens[opener].is_sym("["):
            before = tokens[opener - 1]
            return _word(before) == "trace" and not tokens[opener].space_before
    return False


def _code_tokens(tokens: Sequence[Token]) -> list[Token]:
    """The tokens in source order with the terms of interpolated strings spliced in after their
    string (the string token stays, marking where the literal is); no ``EOF``/``ERROR`` tokens."""
    out: list[Token] = []
    for tok in tokens:
        if tok.kind in (EOF, ERROR):
            continue
        out.append(tok)
        if tok.kind == INTERP:
            for piece in tok.value:
                if isinstance(piece, InterpPiece):
                    out.extend(_code_tokens(piece.tokens))
    return out


def lex_for_screen(text: str) -> LexResult:
    """``text`` lexed as the screen reads it: Lean's lexer, with the screen's wider reading of
    interpolated strings; a leading byte-order mark is skipped."""
    skip = 1 if text.startswith("\ufeff") else 0
    return lex(text[skip:], col=skip, offset=skip, interpolated_after=_interpolated_after)


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


# `construct` is the field name callers use; it shadows pydantic's deprecated `BaseModel.construct`
# classmethod, which nothing here calls, so the warning pydantic emits for that is silenced.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "construct"', category=UserWarning)

    class Finding(BaseModel):
        model_config = ConfigDict(frozen=True)

        rule: str
        construct: str  # type: ignore[assignment]  # the JSON field's name; shadows BaseModel.construct
        """The offending text, as written (whitespace collapsed, at most 80 characters)."""
        line: int
        """1-based."""
        column: int
        """1-based, in characters."""
        message: str
        origin: str = "<generated>"

        def format(self) -> str:
            return f"{self.origin}:{self.line}:{self.column}: {self.rule}: {self.message}"


class ScreenResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    ok: bool
    findings: list[Finding]
    origin: str = "<generated>"

    @property
    def rules(self) -> list[str]:
        return sorted({finding.rule for finding in self.findings})


def format_findings(result: ScreenResult, origin: str | None = None) -> list[str]:
    """One ``origin:line:col: rule: message`` line per finding (``origin`` overrides the stored one)."""
    if origin is None:
        return [finding.format() for finding in result.findings]
    return [finding.model_copy(update={"origin": origin}).format() for finding in result.findings]


# ---------------------------------------------------------------------------------------------
# Screening
# ---------------------------------------------------------------------------------------------


class _Screener:
    def __init__(
        self,
        text: str,
        lexed: LexResult,
        *,
        origin: str,
        context: ScreenContext,
        allowed_imports: Collection[str],
    ) -> None:
        self.text = text
        self.lexed = lexed
        self.tokens = _code_tokens(lexed.tokens)
        self.origin = origin
        self.context = context
        self.allowed_imports = frozenset(allowed_imports)
        self.line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.findings: dict[tuple[str, int], Finding] = {}
        self.consumed: set[int] = set()

    # -- recording ------------------------------------------------------------------------------

    def add(self, rule: str, offset: int, construct: str) -> None:
        key = (rule, offset)
        if key in self.findings:
            return
        line = bisect.bisect_right(self.line_starts, offset)
        column = offset - self.line_starts[line - 1] + 1
        shown = " ".join(construct.split())
        if len(shown) > 80:
            shown = shown[:77] + "..."
        message = f"`{shown}` on line {line}: {RULE_REASONS[rule]}"
        self.findings[key] = Finding(
            rule=rule, construct=shown, line=line, column=column, message=message, origin=self.origin
        )

    def result(self) -> ScreenResult:
        findings = sorted(self.findings.values(), key=lambda f: (f.line, f.column, f.rule))
        return ScreenResult(ok=not findings, findings=findings, origin=self.origin)

    # -- token helpers --------------------------------------------------------------------------

    def token(self, k: int) -> Token | None:
        return self.tokens[k] if 0 <= k < len(self.tokens) else None

    def is_symbol(self, k: int, *values: str) -> bool:
        tok = self.token(k)
        return tok is not None and tok.kind == SYM and tok.value in values

    def keyword(self, k: int) -> str | None:
        tok = self.token(k)
        return None if tok is None else _word(tok)

    def source(self, start: Token, end: Token) -> str:
        return self.text[start.offset : end.end]

    # -- rules ----------------------------------------------------------------------------------

    def run(self) -> ScreenResult:
        for problem in self.lexed.problems:
            start = problem.start if problem.start is not None else 0
            self.add("lex-error", start, f"{self.text[start : start + 20]} ({problem.message})")
        self.comments()

        scopes: list[tuple[str, Token]] = []
        last_declaration: str | None = None
        seen_by = False
        for k, tok in enumerate(self.tokens):
            if k in self.consumed:
                continue
            if tok.kind == SYM:
                self.symbol(k, tok)
            elif tok.kind in (IDENT, FIELD, DOTIDENT, KEYWORD):
                if tok.kind != KEYWORD:
                    self.name(tok)
                if tok.kind == IDENT and tuple(tok.parts) in (("native",), ("config",)):
                    # A config item's name is an identifier: `«native»` is `native` to Lean.
                    self.config_item(k, tok, tok.parts[0])
                word = self.keyword(k)
                if word is None:
                    continue
                if word in _DECLARATION_KEYWORDS:
                    last_declaration = word
                if word == "by":
                    seen_by = True
                self.keyword_rules(k, tok, word, scopes, last_declaration, seen_by)
        for kind, opener in scopes:
            self.add("unbalanced-scope", opener.offset, f"{kind} (never closed by `end`)")
        return self.result()

    def comments(self) -> None:
        """Markers and invisible characters in comments, and comments whose start depends on a
        token table the lexer does not know."""
        code = [tok for tok in self.tokens if tok.kind != INTERP]
        ends = [tok.end for tok in code]
        for comment in self.lexed.comments:
            if self.context == "section":
                marker = comment.text.find("!benchmark")
                if marker >= 0:
                    self.add("benchmark-marker", comment.offset + marker, comment.text.strip())
            for i, ch in enumerate(comment.text):
                odd = ch not in " \n\t\r" and unicodedata.category(ch) == "Cf"
                false_break = ch in _FALSE_LINE_BREAKS or (ch == "\r" and comment.text[i + 1 : i + 2] != "\n")
                if odd or false_break:
                    self.add(
                        "invisible-character",
                        comment.offset + i,
                        f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}",
                    )
            before = bisect.bisect_right(ends, comment.offset) - 1
            prev = code[before] if before >= 0 else None
            if (
                prev is not None
                and prev.kind == SYM
                and prev.end == comment.offset
                and prev.text[-1:] not in _CLOSING_SYMBOLS
            ):
                self.add(
                    "lex-error",
                    comment.offset,
                    f"{prev.text}{comment.text[:2]} (a comment glued to a symbol: whether Lean reads a "
                    "comment here depends on the tokens its imports declare)",
                )

    def symbol(self, k: int, tok: Token) -> None:
        if tok.value == "@[":
            self.attribute_list(k, command=False)
        elif tok.value == "`":
            self.add("meta-programming", tok.offset, self.text[tok.offset : tok.offset + 30])
        elif tok.value == "#":
            nxt = self.token(k + 1)
            word = None if nxt is None or nxt.space_before else _word(nxt)
            if word is None and nxt is not None and not nxt.space_before and nxt.kind == IDENT and not nxt.escaped:
                word = nxt.parts[0]  # `#eval.x`: the command is the first component
            if word is not None:
                self.consumed.add(k + 1)
                self.hash_command(tok, word)
        elif len(tok.text) == 1 and _is_odd_character(tok.text):
            self.add("invisible-character", tok.offset, f"U+{ord(tok.text):04X} {unicodedata.name(tok.text, 'unnamed')}")

    def hash_command(self, tok: Token, word: str) -> None:
        construct = "#" + word
        if word.startswith("exit"):  # Lean reads `#exitNow` as the command `#exit` then `Now`
            self.add("exit-command", tok.offset, construct)
        elif word in _EXECUTING_HASH_COMMANDS:
            self.add("eval-command", tok.offset, construct)
        else:
            self.add("hash-command", tok.offset, construct)

    def name(self, tok: Token) -> None:
        parts = list(tok.parts)
        while parts and parts[0] == "_root_":
            parts.pop(0)
        if not parts:
            return
        for part in parts:
            rule = _NAME_COMPONENT_RULES.get(part)
            if rule is None and "unsafe" in part.lower():
                rule = "unsafe"
            if rule is None and part.startswith("dbgTrace"):
                rule = "debug-side-effect"
            if rule is not None:
                self.add(rule, tok.offset, tok.text)
        root_rule = _NAME_ROOT_RULES.get(parts[0])
        if root_rule == "meta-programming" and len(parts) > 1 and parts[1] in _LEAN_DATA_NAMES:
            root_rule = None
        if root_rule is not None:
            self.add(root_rule, tok.offset, tok.text)

    def keyword_rules(
        self,
        k: int,
        tok: Token,
        word: str,
        scopes: list[tuple[str, Token]],
        last_declaration: str | None,
        seen_by: bool,
    ) -> None:
        nxt = self.token(k + 1)
        if word == "import":
            # The module name belongs to the import finding; it is not a reference to check.
            module = self.token(k + 1)
            if module is None or module.kind != IDENT:
                self.add("import", tok.offset, tok.text)
                return
            self.consumed.add(k + 1)
            if str(module.value) not in self.allowed_imports:
                self.add("import", tok.offset, self.source(tok, module))
            return
        if word == "deriving":
            if self.keyword(k + 1) == "instance":
                self.consumed.add(k + 1)
                self.add("instance-override", tok.offset, self.source(tok, self.tokens[k + 1]))
            elif last_declaration not in _DERIVING_TARGETS:
                self.add(
                    "instance-override", tok.offset, "deriving (not on a structure/inductive of the snippet)"
                )
            return
        if word == "attribute" and self.is_symbol(k + 1, "["):
            self.attribute_list(k + 1, command=True)
            return
        if word in ("namespace", "section", "mutual"):
            named = word != "mutual" and nxt is not None and nxt.kind == IDENT and not nxt.newline_before
            scopes.append((f"{word} {nxt.text}" if named and nxt is not None else word, tok))
            return
        if word == "end":
            if scopes:
                scopes.pop()
            else:
                self.add("unbalanced-scope", tok.offset, "end (closes a scope the snippet did not open)")
            return
        if word in ("variable", "include", "omit"):
            if not any(kind != "mutual" for kind, _ in scopes):
                self.add("scope-leak", tok.offset, f"{word} (outside a section of the snippet)")
            return
        if word == "stop":
            prev = self.token(k - 1)
            at_tactic_start = tok.newline_before or (
                prev is not None
                and (prev.text in _TACTIC_SEPARATORS or (prev.kind == SYM and prev.value in _TACTIC_SEPARATORS))
            )
            if seen_by and at_tactic_start:
                self.add("sorry", tok.offset, "stop")
            return
        if word == "trace" and nxt is not None and not nxt.space_before and self.is_symbol(k + 1, "["):
            self.add("meta-programming", tok.offset, "trace[")
            return
        if (
            word in _PERCENT_ELABORATORS
            and nxt is not None
            and not nxt.space_before
            and self.is_symbol(k + 1, "%", "%[")
        ):
            self.add(_PERCENT_ELABORATORS[word], tok.offset, f"{word}%")
            return
        rule = _KEYWORD_RULES.get(word)
        if rule is not None:
            self.add(rule, tok.offset, word)

    def config_item(self, k: int, tok: Token, name: str) -> None:
        """``+native`` / ``native := ...`` anywhere, and ``(config := ...)`` given to a decide tactic."""
        after_plus = self.is_symbol(k - 1, "+")
        assigned = self.is_symbol(k + 1, ":=")
        if name == "native" and (after_plus or assigned):
            start = self.tokens[k - 1] if after_plus else tok
            self.add("native-decide", start.offset, f"+{tok.text}" if after_plus else f"{tok.text} :=")
        elif name == "config" and assigned and self.is_symbol(k - 1, "("):
            tactic = self.configured_tactic(k - 1)
            if tactic in _DECIDE_TACTICS:
                self.add("decide-config", tok.offset, f"{tactic} (config := ...)")

    def configured_tactic(self, k: int) -> str | None:
        """The tactic whose config items precede the ``(`` at ``k``: walk back over ``+name``,
        ``-name`` and parenthesised items to the word before them."""
        j = k - 1
        while j >= 0:
            tok = self.tokens[j]
            if tok.is_sym(")"):
                depth = 0
                while j >= 0:
                    if self.tokens[j].is_sym(")"):
                        depth += 1
                    elif self.tokens[j].is_sym("("):
                        depth -= 1
                        if depth == 0:
                            break
                    j -= 1
                j -= 1
                continue
            if tok.kind == IDENT and j > 0 and self.is_symbol(j - 1, "+", "-"):
                j -= 2
                continue
            return self.keyword(j)
        return None

    def attribute_list(self, k: int, *, command: bool) -> None:
        """Check the attributes of ``@[...]`` (``k`` at ``@[``) or ``attribute [...]`` (``k`` at ``[``)."""
        depth = 0
        item: list[int] = []
        items: list[list[int]] = []
        end = len(self.tokens)
        for j in range(k, len(self.tokens)):
            tok = self.tokens[j]
            if tok.kind == SYM and tok.value in ("@[", "[", "#[", "%[", "(", "{"):
                depth += 1
                if depth == 1:
                    continue
            elif tok.kind == SYM and tok.value in ("]", ")", "}"):
                depth -= 1
                if depth == 0:
                    end = j
                    break
            if depth == 1 and tok.is_sym(","):
                items.append(item)
                item = []
                continue
            item.append(j)
        items.append(item)
        opener = "attribute [" if command else "@["
        for indices in items:
            name_index = next(
                (
                    j
                    for j in indices
                    if self.tokens[j].kind in (IDENT, KEYWORD) and self.keyword(j) not in ("local", "scoped")
                ),
                None,
            )
            if name_index is None:
                continue
            self.consumed.add(name_index)
            name_token = self.tokens[name_index]
            name = str(name_token.value)
            construct = f"{opener}{self.source(self.tokens[indices[0]], self.tokens[indices[-1]])}]"
            if name in _INSTANCE_ATTRIBUTES:
                self.add("instance-override", name_token.offset, construct)
            elif name in _IMPLEMENTATION_ATTRIBUTES:
                self.add("implementation-override", name_token.offset, construct)
            elif name not in (_ALLOWED_ATTRIBUTE_COMMAND if command else _ALLOWED_ATTRIBUTES):
                self.add("attribute", name_token.offset, construct)
        if end == len(self.tokens):
            self.add("lex-error", self.tokens[k].offset, f"{opener} (never closed)")


def screen_lean(
    text: str,
    *,
    origin: str = "<generated>",
    context: ScreenContext = "section",
    allowed_imports: Collection[str] = (),
) -> ScreenResult:
    """Screen generated Lean text. ``ok`` is true only when nothing was found.

    ``context="section"`` (default) for a section body or a few commands to be spliced into a task
    file; ``"file"`` for a whole generated file (``-- !benchmark`` markers allowed).
    ``allowed_imports``: module names an ``import`` may name (default: none).
    """
    lexed = lex_for_screen(text)
    screener = _Screener(text, lexed, origin=origin, context=context, allowed_imports=allowed_imports)
    return screener.run()


def screen_sections(
    sections: Mapping[str, str], *, origin: str = "<generated>", allowed_imports: Collection[str] = ()
) -> ScreenResult:
    """Screen each section body on its own (scopes must balance per section); findings are
    reported with origin ``origin[section]`` and lines relative to the section."""
    findings: list[Finding] = []
    for name, body in sections.items():
        result = screen_lean(
            body, origin=f"{origin}[{name}]", context="section", allowed_imports=allowed_imports
        )
        findings.extend(result.findings)
    return ScreenResult(ok=not findings, findings=findings, origin=origin)


def screen_file(
    path: str | Path, *, context: ScreenContext = "file", allowed_imports: Collection[str] = ()
) -> ScreenResult:
    """Screen a file (UTF-8). Raises ``OSError``/``UnicodeDecodeError`` when it cannot be read."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    return screen_lean(text, origin=str(path), context=context, allowed_imports=allowed_imports)
