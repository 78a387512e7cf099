"""Every builtin is registered once with its full Lean signature; the registry derives arity,
field-notation receiver, defaults, proofs and named implicits from it, and the evaluator's
explicit-parameter view (``statics.signature``) reads it.

The spot checks below cite the Lean (v4.24) declaration each signature is copied from; they pin
the binders that matter to elaboration: instance binders (``[BEq α]``, ``[Add α] [Zero α]``),
defaults (``mergeSort``'s ``le``, ``splitOn``'s separator, ``qsort``'s ``lt``), proof binders.
"""

from __future__ import annotations

import inspect
import re

import pytest

from veriscale.backends.embedded import statics
from veriscale.backends.embedded.builtins import BUILTINS, IMPLICIT_ARGS, OPTIONAL_ARGS, PROOF_PARAMS
from veriscale.backends.embedded.registry import Builtin, namespace_of
from veriscale.backends.embedded.signatures import BinderKind, SignatureError, parse_signature
from veriscale.lean.types import FunType, LeanTypeError, NamedType, PropType, SortType, parse_signature_type

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _positional(b: Builtin) -> list[inspect.Parameter]:
    """The Python parameters that receive Lean's explicit arguments (not ``result_type``, not the
    named implicits)."""
    params = inspect.signature(b.fn).parameters.values()
    return [p for p in params if p.kind in _POSITIONAL and p.name != "result_type" and p.name not in IMPLICIT_ARGS.get(b.name, ())]


# ---------------------------------------------------------------------------------------------
# Consistency of the whole registry


def test_every_builtin_has_a_parsed_signature() -> None:
    assert len(BUILTINS) > 400
    for name, b in BUILTINS.items():
        assert b.signature is parse_signature(b.signature.text), name
        assert b.arity == len(b.signature.explicit), name


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_python_function_takes_the_explicit_parameters(name: str) -> None:
    """The function's positional parameters are Lean's explicit binders, one for one; exactly the
    trailing ones with a Lean default have a Python default."""
    b = BUILTINS[name]
    params = _positional(b)
    assert len(params) == b.arity, f"{name}: Python takes {[p.name for p in params]}, Lean {b.signature}"
    with_default = [p.default is not inspect.Parameter.empty for p in params]
    optional = b.signature.optional_count
    assert with_default == [False] * (b.arity - optional) + [True] * optional, name
    if b.typed:
        assert "result_type" in inspect.signature(b.fn).parameters, name


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_type_variables_are_bound(name: str) -> None:
    """A Greek letter in a binder type or the result is a variable some binder introduces (so the
    evaluator's view makes it a type variable, not a type named ``α``)."""
    sig = BUILTINS[name].signature

    def greek(ty: object) -> set[str]:
        return {w for w in re.findall(r"[^\W\d][\w']*", str(ty)) if w[0] in "αβγδεσ"}

    bound: set[str] = set()
    for binder in sig.binders:
        assert greek(binder.type) <= bound, f"{name}: unbound variable in {binder}"
        if binder.name:
            bound.add(binder.name)
    assert greek(sig.result) <= bound, name


def test_derived_tables() -> None:
    for name, b in BUILTINS.items():
        assert OPTIONAL_ARGS.get(name, 0) == b.signature.optional_count
        assert PROOF_PARAMS.get(name, frozenset()) == b.signature.proof_positions
    assert IMPLICIT_ARGS == {"Array.ofFn": ("n",), "List.ofFn": ("n",)}
    assert PROOF_PARAMS["Array.swap"] == frozenset({3, 4})
    assert PROOF_PARAMS["Array.eraseIdx"] == frozenset({2})
    assert PROOF_PARAMS["List.head"] == frozenset({1})
    assert OPTIONAL_ARGS["Array.qsort"] == 3
    assert OPTIONAL_ARGS["Array.swap"] == 2


def test_self_index_is_lean_field_notation_rule() -> None:
    """``Lean.Elab.App.addLValArg``: the receiver goes to the first binder whose type's head is the
    namespace, at its position among the explicit arguments."""
    expected = {
        "List.foldl": 2,  # (f) : (init : α) → List β → α
        "List.count": 1,  # [BEq α] (a : α) : List α → Nat
        "List.take": 1,  # : (n : Nat) → (xs : List α) → List α
        "Array.foldl": 2,
        "Array.count": 1,
        "Std.HashMap.fold": 2,  # (f) (init) (b : HashMap α β)
        "Nat.repeat": 1,  # (f : α → α) (n : Nat) (a : α)
        "Function.comp": 0,  # the first binder of an arrow type
        "List.length": 0,
    }
    for name, index in expected.items():
        b = BUILTINS[name]
        assert b.field_notation and b.self_index == index, name
    # no binder of type `List ...`: Lean rejects `xs.range`; the evaluator keeps index 0
    assert not BUILTINS["List.range"].field_notation
    assert BUILTINS["List.range"].self_index == 0


def test_statics_reads_the_registry() -> None:
    assert statics.known_signature_names() == frozenset(BUILTINS)
    foldl = statics.signature("List.foldl", 3)
    assert foldl is not None
    assert [str(p) for p in foldl.params] == ["α → β → α", "α", "List β"]
    assert str(foldl.result) == "α"
    assert all(isinstance(v, statics.TVar) for v in (foldl.result, foldl.params[1]))
    # fewer arguments: the rest stays in the result type
    partial = statics.signature("List.foldl", 1)
    assert partial is not None and str(partial.result) == "α → List β → α"
    # proofs are unknown types; value parameters inside types are variables
    swap = statics.signature("Array.swap", 5)
    assert swap is not None and swap.params[3] is statics.UNKNOWN
    of_fn = statics.signature("Array.ofFn", 1)
    assert of_fn is not None and of_fn.params[0] == FunType(NamedType("Fin", (statics.TVar("n"),)), statics.TVar("α"))
    assert statics.signature("No.such", 1) is None


def test_unverified_signatures_are_counted() -> None:
    """Signatures not checked against Lean's source carry ``verified=False``; the spot-checked ones
    below are verified."""
    unverified = [name for name, b in BUILTINS.items() if not b.verified]
    assert 0 < len(unverified) < len(BUILTINS)
    for name in SPOT_CHECKS:
        assert BUILTINS[name].verified, name


# ---------------------------------------------------------------------------------------------
# Spot checks against Lean's declarations

SPOT_CHECKS: dict[str, str] = {
    # Init/Data/List/Basic.lean: `def elem [BEq α] (a : α) : (l : List α) → Bool`
    "List.elem": "{α : Type u} [BEq α] (a : α) : (l : List α) → Bool",
    # Init/Data/List/Basic.lean: `abbrev contains [BEq α] (as : List α) (a : α) : Bool`
    "List.contains": "{α : Type u} [BEq α] (as : List α) (a : α) : Bool",
    # Init/Data/List/Basic.lean: `protected def erase {α} [BEq α] : List α → α → List α`
    "List.erase": "{α : Type u_1} [BEq α] : List α → α → List α",
    # Init/Data/List/Basic.lean: `def idxOf [BEq α] (a : α) : List α → Nat` (`indexOf`'s successor)
    "List.idxOf": "{α : Type u} [BEq α] (a : α) : List α → Nat",
    "List.count": "{α : Type u} [BEq α] (a : α) : List α → Nat",
    # Init/Data/List/Basic.lean: `def Nodup : List α → Prop := Pairwise (· ≠ ·)`, decided by
    # `instance nodupDecidable [DecidableEq α]`
    "List.Nodup": "{α : Type u} : List α → Prop",
    # Init/Data/List/Basic.lean: `def sum {α} [Add α] [Zero α] : List α → α`
    "List.sum": "{α : Type u_1} [Add α] [Zero α] : List α → α",
    # Init/Data/List/Basic.lean: `def lookup [BEq α] : α → List (α × β) → Option β`
    "List.lookup": "{α : Type u} {β : Type v} [BEq α] : α → List (α × β) → Option β",
    # Init/Data/List/Sort/Basic.lean
    "List.mergeSort": "{α : Type u_1} : ∀ (xs : List α) (le : α → α → Bool := by exact fun a b => a ≤ b), List α",
    "List.merge": "{α : Type u_1} (xs ys : List α) (le : α → α → Bool := by exact fun a b => a ≤ b) : List α",
    # Init/Data/Array/QSort/Basic.lean
    "Array.qsort": "{α : Type u_1} (as : Array α) (lt : α → α → Bool := by exact (· < ·)) (lo : Nat := 0) (hi : Nat := as.size - 1) : Array α",
    # Init/Data/String/Basic.lean: `def splitOn (s : String) (sep : String := " ") : List String`
    "String.splitOn": '(s : String) (sep : String := " ") : List String',
    # Init/Prelude.lean
    "List.foldl": "{α : Type u} {β : Type v} (f : α → β → α) : (init : α) → List β → α",
    # Init/Data/List/Basic.lean: `def head : (as : List α) → as ≠ [] → α`
    "List.head": "{α : Type u} : (as : List α) → as ≠ [] → α",
    # Init/Data/Nat/Fold.lean
    "Nat.fold": "{α : Type u} : (n : Nat) → (f : (i : Nat) → i < n → α → α) → (init : α) → α",
    # Std/Data/HashMap/Basic.lean: `variable {α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α}`
    "Std.HashMap.fold": "{α : Type u} {β : Type v} {_ : BEq α} {_ : Hashable α} {γ : Type w} (f : γ → α → β → γ) (init : γ) (b : Std.HashMap α β) : γ",
}


@pytest.mark.parametrize("name", sorted(SPOT_CHECKS))
def test_spot_check_signature(name: str) -> None:
    assert BUILTINS[name].signature == parse_signature(SPOT_CHECKS[name])


def test_spot_check_instances_and_defaults() -> None:
    def instances(name: str) -> list[str]:
        return [str(t) for t in BUILTINS[name].signature.instances]

    assert instances("List.contains") == ["BEq α"]
    assert instances("List.sum") == ["Add α", "Zero α"]
    assert instances("List.Nodup") == []
    hash_fold = BUILTINS["Std.HashMap.fold"].signature
    assert [(b.name, b.kind, str(b.type)) for b in hash_fold.binders[2:4]] == [
        (None, BinderKind.IMPLICIT, "BEq α"),
        (None, BinderKind.IMPLICIT, "Hashable α"),
    ]
    (le,) = [b for b in BUILTINS["List.mergeSort"].signature.binders if b.name == "le"]
    assert le.default == "by exact fun a b => a ≤ b"
    (sep,) = [b for b in BUILTINS["String.splitOn"].signature.binders if b.name == "sep"]
    assert sep.default == '" "'
    (lt,) = [b for b in BUILTINS["Array.qsort"].signature.binders if b.name == "lt"]
    assert lt.default == "by exact (· < ·)"


# ---------------------------------------------------------------------------------------------
# The parser


def test_parse_signature_binders() -> None:
    sig = parse_signature(
        "{α : Type u} [inst : BEq α] ⦃n : Nat⦄ (xs : Array α) (i j : Nat) "
        "(h : i < xs.size := by get_elem_tactic) : (k : Nat) → List α → α"
    )
    kinds = [(b.name, b.kind) for b in sig.binders]
    assert kinds == [
        ("α", BinderKind.IMPLICIT),
        ("inst", BinderKind.INST),
        ("n", BinderKind.STRICT),
        ("xs", BinderKind.EXPLICIT),
        ("i", BinderKind.EXPLICIT),
        ("j", BinderKind.EXPLICIT),
        ("h", BinderKind.EXPLICIT),
        ("k", BinderKind.EXPLICIT),
        (None, BinderKind.EXPLICIT),
    ]
    assert sig.binders[0].type == SortType("Type", "u") and sig.binders[0].is_universe
    assert sig.binders[6].type == PropType("i < xs.size") and sig.binders[6].is_proof
    assert sig.arity == 6
    assert sig.proof_positions == frozenset({3})
    assert sig.optional_count == 0  # `h` has a default but is followed by `k`
    assert sig.value_implicits == ("n",)
    assert str(sig.result) == "α"


@pytest.mark.parametrize(
    "text",
    [
        "(x : Nat)",  # no result type
        "(x) : Nat",  # no binder type
        "{x : Nat := 3} : Nat",  # a default on an implicit binder
        "(x : Nat : Nat",  # unclosed
        "(x : List) : Nat",  # ill-formed type
    ],
)
def test_parse_signature_errors(text: str) -> None:
    with pytest.raises(SignatureError):
        parse_signature(text)


def test_signature_types() -> None:
    assert parse_signature_type("Sort (max u v)") == SortType("Sort", "(max u v)")
    assert str(parse_signature_type("(i : Nat) → i < n → α → α")) == "Nat → (i < n) → α → α"
    assert str(parse_signature_type("∀ (as : List α), as ≠ [] → α")) == "List α → (as ≠ []) → α"
    with pytest.raises(LeanTypeError):
        parse_signature_type("(i : Nat) Nat")
    with pytest.raises(LeanTypeError):
        parse_signature_type("∀ x, Nat")


def test_namespace_of() -> None:
    assert namespace_of("Std.HashMap.insert") == "Std.HashMap"
    assert namespace_of("toString") == ""
