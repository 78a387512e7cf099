"""Which declarations Lean v4.24.0 core + Std defines, so the elaborator can say "does not exist".

Lean reports ``invalid field 'charCount', the environment does not contain 'String.charCount'``
(``Lean.Elab.App``, ``resolveLValLoop``/``throwLValError``) and ``unknown constant``/``unknown
identifier`` when a name is not in the environment. The engine can only say so with certainty when
it knows every name Lean has in that namespace; ``data/lean_core_names.txt`` lists them (its header
says where the names come from and what is in it): the public API of each covered namespace as the
Lean reference manual at v4.24.0 documents it, the names its release notes mention (deprecated ones
included), and declarations read from Lean's sources.

:func:`lean_has` answers ``True`` (listed), ``False`` (the namespace is one of
:data:`CORE_NAMESPACES` and the name is absent) or ``None`` (cannot tell). The list aims at the *definitions* of the covered namespaces, not at theorems,
names Lean generates or internal helpers, so a name shaped like one of those (``foldl_cons``,
``ext``, ``casesOn``, ``eq_1``, ``instBEqList``, ``toArrayAux``, ``mapTR``, ``appendCore``,
``hasDecEq``) is never claimed absent.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

CORE_NAMESPACES: frozenset[str] = frozenset(
    {
        "List", "Array", "String", "Char", "Nat", "Int", "Option", "Prod", "Bool", "Float", "Fin",
        "Subarray", "Std.HashMap", "Std.HashSet", "Function", "Substring", "String.Iterator",
        "UInt8", "UInt16", "UInt32", "UInt64",
    }
)
"""Namespaces whose direct definitions ``lean_core_names.txt`` lists completely."""

CORE_CLASSES = frozenset({
    "BEq", "DecidableEq", "Hashable", "Ord", "LT", "LE", "Max", "Min", "Inhabited", "ToString", "Repr",
    "Add", "Sub", "Mul", "Div", "Mod", "Neg", "Pow", "HAdd", "HSub", "HMul", "HDiv", "HMod", "HPow",
    "HAppend", "Append", "OfNat", "Zero", "One", "Membership", "GetElem", "GetElem?", "Decidable",
    "DecidableRel", "DecidablePred", "Coe", "CoeTail", "CoeHead", "CoeOut", "CoeDep", "CoeFun", "CoeSort",
    "Functor", "Applicative", "Monad", "ForIn", "EmptyCollection", "Singleton", "Insert", "Std.ToFormat",
})
"""Lean's core type classes whose instances decide what evaluation computes: a local instance of
one is a choice the elaborator must make and evaluation must follow."""

LAW_CLASSES = frozenset({
    "LawfulBEq", "ReflBEq", "EquivBEq", "PartialEquivBEq", "LawfulHashable", "Std.LawfulEqCmp",
})
"""Classes of laws about those instances: a local one computes nothing, but instance resolution
that needs it (``x ∈ xs`` decided through ``LawfulBEq``) may then pick another instance."""

_DATA_FILE = "lean_core_names.txt"

# Names Lean generates for structures and inductives (``mkCasesOn``, ``mkNoConfusion``,
# ``mkBelow``, ``mkBRecOn``, structural/wf equation lemmas, ``match`` auxiliaries): not listed.
_GENERATED = frozenset(
    {
        "rec", "recOn", "casesOn", "noConfusion", "noConfusionType", "below", "brecOn", "binductionOn",
        "ibelow", "ctorIdx", "toCtorIdx", "injEq", "inj", "sizeOf_spec", "eq_def", "induct",
        "mutual_induct", "fun_cases", "eq_unfold",
    }
)
_GENERATED_PATTERN = re.compile(r"^(eq_\d+|match_\d+|proof_\d+|_.*|inst[A-Z].*)$")

# Theorem names by Lean's naming convention (snake_case) and the usual one-word theorem names.
# Lean's names for implementation helpers (``List.toArrayAux``, ``List.mapTR``, ``Array.appendCore``,
# ``Array.toListImpl``, ``Array.mapMUnsafe``, ``List.hasDecEq``): public but undocumented, so the
# list may lack some of them.
_HELPER_SUFFIXES = ("Aux", "TR", "Impl", "Imp", "Unsafe", "Core", "Internal", "Loop", "Go")
_HELPER_PREFIXES = ("hasDec", "dec", "internal")

_THEOREM_WORDS = frozenset(
    {"ext", "eta", "trans", "symm", "refl", "rfl", "irrefl", "antisymm", "asymm", "congr", "comm",
     "assoc", "subst", "mp", "mpr", "elim", "intro"}
)


@lru_cache(maxsize=1)
def core_names() -> frozenset[str]:
    """Every name in ``data/lean_core_names.txt``."""
    text = resources.files("veriscale").joinpath("backends", "embedded", "data", _DATA_FILE).read_text(
        encoding="utf-8"
    )
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def _namespace_and_last(name: str) -> tuple[str, str]:
    namespace, _, last = name.rpartition(".")
    return namespace, last


def _may_be_unlisted(last: str) -> bool:
    """Whether a name ending in ``last`` could exist although the list lacks it: a theorem, a
    name Lean generates or an implementation helper, for which the list makes no completeness
    claim."""
    stem = last.rstrip("?!'")
    return (
        "_" in stem
        or stem in _THEOREM_WORDS
        or last in _GENERATED
        or _GENERATED_PATTERN.match(last) is not None
        or stem.endswith(_HELPER_SUFFIXES)
        or stem.startswith(_HELPER_PREFIXES)
    )


def lean_has(name: str) -> bool | None:
    """Does Lean v4.24.0 (core + Std, no Mathlib) have a declaration named ``name``?

    ``True``: it does. ``False``: ``name`` is a direct member of one of :data:`CORE_NAMESPACES`
    and Lean has no such definition. ``None``: cannot tell (another namespace, or a theorem or
    generated name, which the list does not claim to hold completely).
    """
    name = name.removeprefix("_root_.")
    if name in core_names():
        return True
    namespace, last = _namespace_and_last(name)
    if namespace not in CORE_NAMESPACES or not last or _may_be_unlisted(last):
        return None
    return False


__all__ = ["CORE_NAMESPACES", "core_names", "lean_has"]
