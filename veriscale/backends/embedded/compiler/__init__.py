"""Compile the parsed Lean subset to Python closures.

Every term compiles to a closure ``f(frame) -> value``. A *frame* is a Python list holding the
local variables of one user-definition invocation; each local gets a slot at compile time.
Lambdas snapshot the frame when they are created (Lean values are immutable, so a closure sees
the values of the variables at creation time, even when a ``do`` block later reassigns them) and
copy the snapshot on every call.

Lean's elaboration decisions that depend on static types (numeral types, ``binop%`` coercions,
the default of ``xs[i]!``) are reproduced from declared types
(:mod:`veriscale.backends.embedded.statics`) and from the type the elaborator inferred for each
term (:mod:`veriscale.backends.embedded.elab.node_types`): a term whose type is known compiles to
the closure of that type (no run-time dispatch, no defensive coercion). Only where neither tells,
the run-time types of values decide, which equal their static types except for numerals. Where
that is not enough to be sure (a ``Nat`` subtraction that truncates while an operand's type was
not declared, since Lean may have computed in ``Int``), the engine refuses rather than guesses.

The compiler is one class, :class:`~.core.Compiler`, composed of one mixin per construct
family, each in its own module:

* :mod:`.core`: user definitions, name resolution, dispatch, literals and small terms;
* :mod:`.static_types`: the static types of terms;
* :mod:`.calls`: identifiers, applications, builtin and user calls, field notation;
* :mod:`.lambdas`: ``fun``, ``·`` sections, ``let`` and ``let rec``;
* :mod:`.patterns`: ``if``, ``match``, patterns, anonymous constructors, structure instances;
* :mod:`.arith`: operators (``binop%`` arithmetic, relations, coercions, connectives);
* :mod:`.quantifiers`: ``∀``/``∃``, the sound rules for unbounded ones, the witness search;
* :mod:`.do_notation`: ``do`` blocks and their loops;
* :mod:`.hoisting`: a postcondition's terms that do not read the output, evaluated once per input;
* :mod:`.support`: closures, scopes and helpers shared by several of them;
* :mod:`.codegen`: the Python source the simple constructs attach to their closures, compiled
  into one generated function per function body (definitions, ``fun``, ``do`` blocks, loops);
* :mod:`.fast_paths`: array operations and indexing written inline in that source.
"""

from veriscale.backends.embedded.compiler.core import Compiler
from veriscale.backends.embedded.compiler.support import DefCtx, Scope, _coercer, _needs_int, unsupported

__all__ = ["Compiler", "DefCtx", "Scope", "_coercer", "_needs_int", "unsupported"]
