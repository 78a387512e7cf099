"""Lazy implementations derived from the signature alone ("templates").

Each template is the body of ``def <name> (params) (h_precond : …) : <ret> :=`` that type-checks in
Lean by construction: it only uses the declared return type as the expected type, parameters of
known types, and functions that exist in Lean core for those types (and that the embedded engine
implements). ``Nat`` results that come from ``Int`` code and vice versa are converted explicitly.

Kinds (``template:<kind>[:<param>]``):

* constants: ``const-default`` (the type's ``Inhabited`` default: ``0``, ``[]``, ``#[]``, ``""``,
  ``false``, ``none``, ``(0, 0)``, a structure of defaults), ``const-one`` / ``const-minus-one``
  (numbers), ``const-true`` (``Bool``), ``const-singleton`` (``[d]``/``#[d]``),
  ``const-some`` (``some d``), ``const-pair-one`` (``(1, 1)`` for numeric pairs);
* echoes: ``echo:<p>`` (a parameter of the return type), ``echo-plus-one:<p>``, ``cast:<p>``
  (``(n : Int)``, ``n.toNat``, ``xs.toArray``, ``a.toList``), ``pair:<p>,<q>`` (a tuple of
  parameters), ``max-params``/``min-params``/``sum-params`` (two scalar parameters);
* collections (``List``/``Array`` parameter ``p`` of the return type): ``reverse``, ``sort``
  (``Nat``/``Int`` elements), ``dedup``, ``take-1``, ``drop-1``;
* reductions: ``first``/``last`` (an element-typed result), ``length`` (``Nat``/``Int`` result,
  also of a ``String``), ``sum``, ``max``, ``min``, ``head-option``/``max-option`` (``Option α``);
* ``Bool`` results: ``is-empty``, ``is-nonempty``, ``contains:<p>,<x>``;
* ``String`` results: ``take-1``/``drop-1`` of a ``String`` parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from veriscale.lean.codec import ValueParseError, default_value, render_value
from veriscale.lean.types import LeanType, NamedType, ProdType, StructDef

__all__ = ["Template", "signature_templates"]

_NUMERIC = ("Nat", "Int")
_NUMBERS = ("Nat", "Int", "UInt8", "UInt16", "UInt32", "UInt64")


@dataclass(frozen=True)
class Template:
    kind: str
    """``const-default``, ``reverse:xs``, ...: the id without the ``template:`` prefix."""
    expression: str
    description: str


def _option_of(ty: LeanType) -> LeanType | None:
    """``α`` for ``Option α``."""
    if isinstance(ty, NamedType) and ty.name == "Option" and len(ty.args) == 1:
        return ty.args[0]
    return None


def _scalar(ty: LeanType, *names: str) -> bool:
    return isinstance(ty, NamedType) and not ty.args and ty.name in names


def _container(ty: LeanType) -> tuple[str, LeanType] | None:
    """``("List", α)`` / ``("Array", α)`` for a sequence type."""
    if isinstance(ty, NamedType) and ty.name in ("List", "Array") and len(ty.args) == 1:
        return ty.name, ty.args[0]
    return None


def _literal(ty: LeanType, structs: Mapping[str, StructDef]) -> str | None:
    """Lean source of the type's default value, or ``None`` when it has none we can write."""
    try:
        return render_value(default_value(ty, structs), ty, structs)
    except (ValueParseError, KeyError, TypeError, ValueError):
        return None


def _atom(text: str) -> str:
    """Parenthesize a literal used as a function argument unless it is one token or bracketed."""
    if text[:1] in "([{#\"'" or (" " not in text and not text.startswith("-")):
        return text
    return f"({text})"


def signature_templates(
    param_types: Mapping[str, LeanType], return_type: LeanType, structs: Mapping[str, StructDef]
) -> list[Template]:
    """Every template for the signature, in a fixed order, without duplicate expressions."""
    out: list[Template] = []
    seen: set[str] = set()

    def add(kind: str, expression: str, description: str) -> None:
        if expression not in seen:
            seen.add(expression)
            out.append(Template(kind, expression, description))

    ret = return_type
    default = _literal(ret, structs)
    # -- constants ---------------------------------------------------------------------------
    if default is not None:
        add("const-default", default, f"always the default value `{default}`")
    if _scalar(ret, *_NUMBERS):
        add("const-one", "1", "always 1")
    if _scalar(ret, "Int"):
        add("const-minus-one", "-1", "always -1")
    if _scalar(ret, "Float"):
        add("const-one", "1.0", "always 1.0")
    if _scalar(ret, "Bool"):
        add("const-true", "true", "always true")
    seq = _container(ret)
    if seq is not None:
        elem_default = _literal(seq[1], structs)
        if elem_default is not None:
            opener = "[" if seq[0] == "List" else "#["
            add(
                "const-singleton", f"{opener}{elem_default}]", f"always the one-element {seq[0]} of a default"
            )
    option_elem = _option_of(ret)
    if option_elem is not None:
        inner = _literal(option_elem, structs)
        if inner is not None:
            add("const-some", f"some {_atom(inner)}", f"always `some {inner}`")
    if isinstance(ret, ProdType) and _scalar(ret.fst, *_NUMBERS) and _scalar(ret.snd, *_NUMBERS):
        add("const-pair-one", "(1, 1)", "always (1, 1)")

    # -- echoes and conversions --------------------------------------------------------------
    params = list(param_types.items())
    for name, ty in params:
        if ty == ret:
            add(f"echo:{name}", name, f"return the parameter `{name}` unchanged")
    for name, ty in params:
        if ty == ret and _scalar(ty, *_NUMERIC):
            add(f"echo-plus-one:{name}", f"{name} + 1", f"return `{name} + 1`")
        elif _scalar(ty, "Nat") and _scalar(ret, "Int"):
            add(f"cast:{name}", f"({name} : Int)", f"return the natural number `{name}` as an integer")
        elif _scalar(ty, "Int") and _scalar(ret, "Nat"):
            add(f"cast:{name}", f"{name}.toNat", f"return `{name}.toNat`")
        source, target = _container(ty), _container(ret)
        if source and target and source[1] == target[1] and source[0] != target[0]:
            method = "toArray" if target[0] == "Array" else "toList"
            add(f"cast:{name}", f"{name}.{method}", f"return the elements of `{name}` unchanged")
    if isinstance(ret, ProdType) and not isinstance(ret.snd, ProdType):
        firsts = [n for n, t in params if t == ret.fst]
        seconds = [n for n, t in params if t == ret.snd]
        if firsts and seconds:
            fst = firsts[0]
            snd = next((n for n in seconds if n != fst), seconds[0])
            add(f"pair:{fst},{snd}", f"({fst}, {snd})", f"return the parameters `({fst}, {snd})`")
    scalars = [n for n, t in params if t == ret and _scalar(t, *_NUMERIC)]
    if len(scalars) >= 2:
        a, b = scalars[:2]
        add("max-params", f"max {a} {b}", f"the larger of `{a}` and `{b}`")
        add("min-params", f"min {a} {b}", f"the smaller of `{a}` and `{b}`")
        add("sum-params", f"{a} + {b}", f"the sum `{a} + {b}`")

    # -- collections -------------------------------------------------------------------------
    for name, ty in params:
        seq_param = _container(ty)
        if seq_param is None:
            continue
        kind, elem = seq_param
        is_list = kind == "List"
        if ty == ret:
            add(f"reverse:{name}", f"{name}.reverse", f"`{name}` reversed")
            if _scalar(elem, *_NUMERIC):
                add(
                    f"sort:{name}",
                    f"{name}.mergeSort" if is_list else f"{name}.toList.mergeSort.toArray",
                    f"`{name}` sorted ascending",
                )
                add(
                    f"dedup:{name}",
                    f"{name}.eraseDups" if is_list else f"{name}.toList.eraseDups.toArray",
                    f"`{name}` without repeated elements",
                )
            add(
                f"take-1:{name}",
                f"{name}.take 1" if is_list else f"{name}.extract 0 1",
                f"the first element of `{name}` only",
            )
            add(
                f"drop-1:{name}",
                f"{name}.drop 1" if is_list else f"{name}.extract 1 {name}.size",
                f"`{name}` without its first element",
            )
        elem_default = _literal(elem, structs)
        if elem == ret and elem_default is not None:
            d = _atom(elem_default)
            add(
                f"first:{name}",
                f"{name}.headD {d}" if is_list else f"{name}.getD 0 {d}",
                f"the first element of `{name}`",
            )
            add(
                f"last:{name}",
                f"{name}.getLastD {d}" if is_list else f"({name}.back?).getD {d}",
                f"the last element of `{name}`",
            )
        size = f"{name}.length" if is_list else f"{name}.size"
        if _scalar(ret, "Nat"):
            add(f"length:{name}", size, f"the length of `{name}`")
        elif _scalar(ret, "Int"):
            add(f"length:{name}", f"({size} : Int)", f"the length of `{name}`")
        as_list = name if is_list else f"{name}.toList"
        if _scalar(elem, *_NUMERIC):
            if elem == ret:
                add(f"sum:{name}", f"{as_list}.sum", f"the sum of `{name}`")
                add(
                    f"max:{name}",
                    f"({as_list}.max?).getD 0",
                    f"the largest element of `{name}` (0 when empty)",
                )
                add(
                    f"min:{name}",
                    f"({as_list}.min?).getD 0",
                    f"the smallest element of `{name}` (0 when empty)",
                )
            elif _scalar(elem, "Nat") and _scalar(ret, "Int"):
                add(f"sum:{name}", f"({as_list}.sum : Int)", f"the sum of `{name}`")
            if option_elem == elem:
                add(f"max-option:{name}", f"{as_list}.max?", f"the largest element of `{name}`, if any")
        if option_elem == elem:
            add(f"head-option:{name}", f"{as_list}.head?", f"the first element of `{name}`, if any")
        if _scalar(ret, "Bool"):
            add(f"is-empty:{name}", f"{name}.isEmpty", f"whether `{name}` is empty")
            add(f"is-nonempty:{name}", f"!{name}.isEmpty", f"whether `{name}` is non-empty")
            for other, other_ty in params:
                if other_ty == elem and other != name:
                    add(
                        f"contains:{name},{other}",
                        f"{name}.contains {other}",
                        f"whether `{name}` contains `{other}`",
                    )
    for name, ty in params:
        if _scalar(ty, "String"):
            if _scalar(ret, "Nat"):
                add(f"length:{name}", f"{name}.length", f"the length of `{name}`")
            elif _scalar(ret, "Int"):
                add(f"length:{name}", f"({name}.length : Int)", f"the length of `{name}`")
            elif _scalar(ret, "String"):
                add(f"take-1:{name}", f"{name}.take 1", f"the first character of `{name}` only")
                add(f"drop-1:{name}", f"{name}.drop 1", f"`{name}` without its first character")
            elif _scalar(ret, "Bool"):
                add(f"is-empty:{name}", f"{name}.isEmpty", f"whether `{name}` is empty")
    return out
