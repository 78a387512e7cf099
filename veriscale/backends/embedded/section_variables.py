"""Section variables: the binders of ``variable`` commands a definition takes as leading parameters.

Lean keeps the binders of every ``variable`` command in the scope (section or namespace) it is
written in, until that scope's ``end``. A definition declared there takes, before its own
binders and in the order they were declared, the section variables it uses (Lean >= 4.10,
``Lean.Elab.Command`` ``sectionVars`` and ``Lean.Elab.MutualDef``: a definition includes the
variables mentioned in its header or body; the variables the types of included ones mention;
and an instance-implicit variable when every variable it mentions is included). So::

    section
    variable (bias : Nat)
    def widthPlus (lo hi : Int) : Nat := (hi - lo).toNat + bias
    end

declares ``widthPlus (bias : Nat) (lo hi : Int) : Nat``. This module rewrites the parsed
commands that way before anything else reads them (theorems are skipped: the engine does not
elaborate them). Whether a name is used is decided syntactically (any identifier whose first
component is the variable's name): a name shadowed by a local binder of the same name is
counted as a use, which Lean would not do -- said here as the one approximation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from veriscale.backends.embedded import ast as A

_DEFINITION_KINDS = frozenset({"def", "abbrev"})


def _names_in(node: object) -> Iterator[str]:
    """The first component of every identifier under ``node``."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, A.Ident):
            yield item.name.split(".", 1)[0]
        if isinstance(item, (A.Node, list, tuple)):
            stack.extend(A.subterms(item))


def _used_names(cmd: A.DefCmd) -> set[str]:
    """Identifiers in the header (binder types, defaults, result type) and the body (with its
    equations and ``where`` helpers) of ``cmd``."""
    used: set[str] = set()
    for part in (cmd.binders, cmd.type, cmd.body, cmd.alts, cmd.where):
        if part is not None:
            used.update(_names_in(part))
    return used


def included_binders(variables: Sequence[A.Binder], cmd: A.DefCmd) -> list[A.Binder]:
    """The section variables ``cmd`` takes, as binder groups restricted to the included names, in
    the order they were declared."""
    declared = {n for b in variables for n in b.names if n != "_"}
    included = _used_names(cmd) & declared
    changed = True
    while changed:
        changed = False
        for b in variables:
            mentions = set(_names_in(b.type)) & declared if b.type is not None else set()
            if b.kind == "inst" and not b.names:
                continue
            if any(n in included for n in b.names) and not mentions <= included:
                included |= mentions  # the type of an included variable mentions these
                changed = True
    out: list[A.Binder] = []
    for b in variables:
        if b.kind == "inst" and (not b.names or not any(n in declared for n in b.names)):
            mentions = set(_names_in(b.type)) & declared if b.type is not None else set()
            if mentions <= included:
                out.append(b)
            continue
        names = [n for n in b.names if n in included]
        if names:
            out.append(A.Binder(b.line, b.col, names, b.type, b.type_text, b.kind, b.pattern, b.default))
    return out


def include_section_variables(commands: list[A.Node]) -> None:
    """Prepend to every definition of ``commands`` the section variables it takes (in place)."""
    frames: list[list[A.Binder]] = [[]]
    for cmd in commands:
        inner = getattr(cmd, "command", cmd)  # `open … in <command>`: the command
        if isinstance(cmd, (A.SectionCmd, A.NamespaceCmd)):
            # `namespace A.B` opens one scope per component; `end A.B` closes them all
            depth = len(cmd.name.split(".")) if isinstance(cmd, A.NamespaceCmd) else 1
            frames.extend([] for _ in range(depth))
        elif isinstance(cmd, A.EndCmd):
            depth = len(cmd.name.split(".")) if cmd.name else 1
            if len(frames) > depth:
                del frames[-depth:]
        elif isinstance(cmd, A.VariableCmd):
            frames[-1].extend(cmd.binders)
        elif isinstance(inner, A.DefCmd) and inner.kind in _DEFINITION_KINDS:
            variables = [b for frame in frames for b in frame]
            if variables:
                inner.binders[:0] = included_binders(variables, inner)


__all__ = ["include_section_variables", "included_binders"]
