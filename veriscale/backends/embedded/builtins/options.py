"""``Option``, ``Prod``, ``Bool`` and the small combinators (``id``, ``Id.run``, ``Function.comp``).

Facts (Init/Prelude.lean, Init/Data/Option/Basic.lean, Init/Core.lean):

* ``o.get!`` on ``none`` panics and returns ``default`` of the element type.
* ``o.getD d``, ``o.isSome``, ``o.isNone``, ``Option.map f o``, ``o.bind f`` are the usual ones.
* ``Prod.map f g (a, b) = (f a, g b)``; ``Prod.swap (a, b) = (b, a)``.
* ``Id.run x = x`` (``do`` blocks in ``Id`` are evaluated by the evaluator itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from veriscale.backends.embedded.builtins._core import default_of_type
from veriscale.backends.embedded.registry import builtin
from veriscale.lean.values import NONE, Nat, Pair, Some, pair

Fn = Callable[..., Any]


@builtin("Option.get!", "{α : Type u} [Inhabited α] : Option α → α", typed=True)
def option_get_bang(o: Any, *, result_type: Any = None) -> Any:
    if isinstance(o, Some):
        return o.value
    return default_of_type(result_type, construct="Option.get!")


@builtin("Option.getD", "{α : Type u_1} (opt : Option α) (dflt : α) : α")
def option_get_d(o: Any, fallback: Any) -> Any:
    return o.value if isinstance(o, Some) else fallback


@builtin("Option.isSome", "{α : Type u_1} : Option α → Bool")
def option_is_some(o: Any) -> bool:
    return isinstance(o, Some)


@builtin("Option.isNone", "{α : Type u_1} : Option α → Bool")
def option_is_none(o: Any) -> bool:
    return o is NONE


@builtin("Option.map", "{α : Type u_1} {β : Type u_2} (f : α → β) : Option α → Option β")
def option_map(f: Fn, o: Any) -> Any:
    return Some(f(o.value)) if isinstance(o, Some) else NONE


@builtin("Option.bind", "{α : Type u_1} {β : Type u_2} : Option α → (α → Option β) → Option β")
def option_bind(o: Any, f: Fn) -> Any:
    return f(o.value) if isinstance(o, Some) else NONE


@builtin("Option.toList", "{α : Type u_1} : Option α → List α")
def option_to_list(o: Any) -> tuple:
    return (o.value,) if isinstance(o, Some) else ()


@builtin("Option.filter", "{α : Type u_1} (p : α → Bool) : Option α → Option α")
def option_filter(p: Fn, o: Any) -> Any:
    return o if isinstance(o, Some) and p(o.value) else NONE


@builtin("Prod.fst", "{α : Type u} {β : Type v} (self : α × β) : α")
def prod_fst(p: Pair) -> Any:
    return p.fst


@builtin("Prod.snd", "{α : Type u} {β : Type v} (self : α × β) : β")
def prod_snd(p: Pair) -> Any:
    return p.snd


@builtin("Prod.mk", "{α : Type _} {β : Type _} : α → β → α × β", verified=False)
def prod_mk(a: Any, b: Any) -> Pair:
    return pair(a, b)


@builtin("Prod.map", "{α₁ : Type u₁} {α₂ : Type u₂} {β₁ : Type v₁} {β₂ : Type v₂} (f : α₁ → α₂) (g : β₁ → β₂) : α₁ × β₁ → α₂ × β₂")
def prod_map(f: Fn, g: Fn, p: Pair) -> Pair:
    return pair(f(p.fst), g(p.snd))


@builtin("Prod.swap", "{α : Type u_1} {β : Type u_2} : α × β → β × α")
def prod_swap(p: Pair) -> Pair:
    return pair(p.snd, p.fst)


@builtin("id", "{α : Sort u} (a : α) : α")
def identity(x: Any) -> Any:
    return x


@builtin("Id.run", "{α : Type _} : α → α", verified=False)
def id_run(x: Any) -> Any:
    return x


@builtin("Function.comp", "{α : Sort u} {β : Sort v} {δ : Sort w} (f : β → δ) (g : α → β) : α → δ")
def function_comp(f: Fn, g: Fn, x: Any) -> Any:
    """``Function.comp f g : α → δ``: the type's arrow is an explicit parameter too, so
    ``Function.comp f g`` is a partial application."""
    return f(g(x))


builtin("not", ": Bool → Bool", verified=False)(lambda b: not b)
builtin("Bool.not", ": Bool → Bool", verified=False)(lambda b: not b)
builtin("and", ": Bool → Bool → Bool", verified=False)(lambda a, b: bool(a and b))
builtin("or", ": Bool → Bool → Bool", verified=False)(lambda a, b: bool(a or b))
builtin("Bool.xor", ": Bool → Bool → Bool", verified=False)(lambda a, b: bool(a) != bool(b))
builtin("Bool.toNat", ": Bool → Nat", verified=False)(lambda b: Nat(1 if b else 0))


@builtin("Option.orElse", "{α : Type u_1} : Option α → (Unit → Option α) → Option α")
def option_or_else(o: Any, f: Fn) -> Any:
    """``o.orElse f``: ``f ()`` is only evaluated for ``none``."""
    from veriscale.lean.values import UNIT

    return o if isinstance(o, Some) else f(UNIT)


@builtin("Option.all", "{α : Type u_1} (p : α → Bool) : Option α → Bool")
def option_all(p: Fn, o: Any) -> bool:
    return bool(p(o.value)) if isinstance(o, Some) else True


@builtin("Option.any", "{α : Type u_1} (p : α → Bool) : Option α → Bool")
def option_any(p: Fn, o: Any) -> bool:
    return bool(p(o.value)) if isinstance(o, Some) else False


@builtin("Nat.repeat", "{α : Type u} (f : α → α) (n : Nat) (a : α) : α")
def nat_repeat(f: Fn, n: Any, a: Any) -> Any:
    """``Nat.repeat f n a`` applies ``f`` ``n`` times."""
    from veriscale.backends.embedded.builtins._core import check_size

    check_size(int(n), "Nat.repeat")
    for _ in range(int(n)):
        a = f(a)
    return a


builtin("Bool.and", ": Bool → Bool → Bool", verified=False)(lambda a, b: bool(a and b))
builtin("Bool.or", ": Bool → Bool → Bool", verified=False)(lambda a, b: bool(a or b))
