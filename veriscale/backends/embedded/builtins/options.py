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
from veriscale.runtime import NONE, Nat, Pair, Some

Fn = Callable[..., Any]


@builtin("Option.get!", 1, typed=True)
def option_get_bang(o: Any, *, result_type: Any = None) -> Any:
    if isinstance(o, Some):
        return o.value
    return default_of_type(result_type, construct="Option.get!")


@builtin("Option.getD", 2)
def option_get_d(o: Any, fallback: Any) -> Any:
    return o.value if isinstance(o, Some) else fallback


@builtin("Option.isSome", 1)
def option_is_some(o: Any) -> bool:
    return isinstance(o, Some)


@builtin("Option.isNone", 1)
def option_is_none(o: Any) -> bool:
    return o is NONE


@builtin("Option.map", 2, self_index=1)
def option_map(f: Fn, o: Any) -> Any:
    return Some(f(o.value)) if isinstance(o, Some) else NONE


@builtin("Option.bind", 2)
def option_bind(o: Any, f: Fn) -> Any:
    return f(o.value) if isinstance(o, Some) else NONE


@builtin("Option.toList", 1)
def option_to_list(o: Any) -> tuple:
    return (o.value,) if isinstance(o, Some) else ()


@builtin("Option.filter", 2, self_index=1)
def option_filter(p: Fn, o: Any) -> Any:
    return o if isinstance(o, Some) and p(o.value) else NONE


@builtin("Prod.fst", 1)
def prod_fst(p: Pair) -> Any:
    return p.fst


@builtin("Prod.snd", 1)
def prod_snd(p: Pair) -> Any:
    return p.snd


@builtin("Prod.mk", 2)
def prod_mk(a: Any, b: Any) -> Pair:
    return Pair(a, b)


@builtin("Prod.map", 3, self_index=2)
def prod_map(f: Fn, g: Fn, p: Pair) -> Pair:
    return Pair(f(p.fst), g(p.snd))


@builtin("Prod.swap", 1)
def prod_swap(p: Pair) -> Pair:
    return Pair(p.snd, p.fst)


@builtin("id", 1)
def identity(x: Any) -> Any:
    return x


@builtin("Id.run", 1)
def id_run(x: Any) -> Any:
    return x


@builtin("Function.comp", 2)
def function_comp(f: Fn, g: Fn) -> Fn:
    return lambda x: f(g(x))


builtin("not", 1)(lambda b: not b)
builtin("Bool.not", 1)(lambda b: not b)
builtin("and", 2)(lambda a, b: bool(a and b))
builtin("or", 2)(lambda a, b: bool(a or b))
builtin("Bool.xor", 2)(lambda a, b: bool(a) != bool(b))
builtin("Bool.toNat", 1)(lambda b: Nat(1 if b else 0))


@builtin("Option.orElse", 2)
def option_or_else(o: Any, f: Fn) -> Any:
    """``o.orElse f``: ``f ()`` is only evaluated for ``none``."""
    from veriscale.runtime import UNIT

    return o if isinstance(o, Some) else f(UNIT)


@builtin("Option.all", 2, self_index=1)
def option_all(p: Fn, o: Any) -> bool:
    return bool(p(o.value)) if isinstance(o, Some) else True


@builtin("Option.any", 2, self_index=1)
def option_any(p: Fn, o: Any) -> bool:
    return bool(p(o.value)) if isinstance(o, Some) else False


@builtin("Nat.repeat", 3)
def nat_repeat(f: Fn, n: Any, a: Any) -> Any:
    """``Nat.repeat f n a`` applies ``f`` ``n`` times."""
    from veriscale.backends.embedded.builtins._core import check_size

    check_size(int(n), "Nat.repeat")
    for _ in range(int(n)):
        a = f(a)
    return a


builtin("Bool.and", 2)(lambda a, b: bool(a and b))
builtin("Bool.or", 2)(lambda a, b: bool(a or b))
