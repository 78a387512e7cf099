"""A task's Lean file as an evaluable program: parsed once, definitions compiled lazily.

``Program.from_task(task)`` parses ``task.lean_text()`` and builds the environment
(:class:`~veriscale.backends.embedded.env.Env`); the compiler (:mod:`.compiler`) turns each
definition into a Python closure the first time a check reaches it. Programs are cached per
Lean text, so every batch of checks on one task reuses the compiled closures.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.binders import type_of_text
from veriscale.backends.embedded.compiler import Compiler
from veriscale.backends.embedded.env import CtorInfo, Env, IndInfo, InstanceInfo, StructInfo, UserDef
from veriscale.backends.embedded.parser import OpenIn, parse_file
from veriscale.backends.embedded.resolve import ScopeState, std_containers, walk_scopes
from veriscale.backends.embedded.section_variables import include_section_variables

if TYPE_CHECKING:
    from veriscale.backends.embedded.elab.context import Report
    from veriscale.task import Task


class Program:
    """The parsed and indexed Lean file of one task."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parsed = parse_file(text)
        include_section_variables(self.parsed.commands)
        self.env = Env()
        self._index()
        self._compiler: Compiler | None = None
        self._elaboration: Report | None = None

    @classmethod
    def from_task(cls, task: Task) -> Program:
        return cached_program(task.lean_text())

    @property
    def compiler(self) -> Compiler:
        if self._compiler is None:
            # the compiler reads the elaborator's type of every term (typed evaluation)
            self._compiler = Compiler(self.env, self.elaboration.node_types, self.elaboration)
        return self._compiler

    @property
    def elaboration(self) -> Report:
        """The file elaborated (:mod:`.elab`), computed once per program."""
        if self._elaboration is None:
            from veriscale.backends.embedded.elab import elaborate

            self._elaboration = elaborate(self.env)
        return self._elaboration

    # -- indexing ---------------------------------------------------------------------------
    def _index(self) -> None:
        """Index the file's definitions under the names Lean gives them, each with the scope
        Lean elaborates it in (:func:`.resolve.walk_scopes`)."""
        env = self.env
        imports = [module for c in self.parsed.commands if isinstance(c, A.OtherCmd) and c.keyword == "import"
                   for module in c.text.split()[1:]]
        env.has_mathlib = any(module.startswith("Mathlib") for module in imports)
        env.std_containers = std_containers(imports)
        scopes = walk_scopes(self.parsed.commands, has_mathlib=env.has_mathlib, std=env.std_containers)
        env.scopes = scopes
        opens: list[str] = []
        """Every namespace an `open` named so far: the compiler's (pre-resolution) view."""
        for cmd in self.parsed.commands:
            scoped: tuple[str, ...] = ()
            if isinstance(cmd, OpenIn):
                # `open X in <command>`: the opens hold for that one command only
                scoped, cmd = tuple(_legacy_opens(cmd.decl) if cmd.decl else cmd.names), cmd.command
            scope = scopes.scope_of(cmd)
            ns = scope.namespace if scope is not None else ""
            if isinstance(cmd, A.OpenCmd):
                opens.extend(_legacy_opens(cmd))
            elif isinstance(cmd, A.CommandError):
                if cmd.name:
                    env.errors[cmd.name] = cmd
                    if ns:
                        env.errors[f"{ns}.{cmd.name}"] = cmd
            elif isinstance(cmd, A.DefCmd):
                if cmd.kind in ("theorem", "lemma", "example"):
                    continue
                self._add_def(cmd, tuple(opens) + scoped)
            elif isinstance(cmd, A.StructureCmd):
                name = self._full_name(cmd)
                fields = [(f.name, type_of_text(f.type_text), f.default) for f in cmd.fields]
                env.structs[name] = StructInfo(
                    name=name, params=[n for b in cmd.params for n in b.names], fields=fields,
                    deriving=set(cmd.deriving), ctor=cmd.ctor_name, cmd=cmd, scope=scope)
            elif isinstance(cmd, A.InductiveCmd):
                name = self._full_name(cmd)
                ctors = []
                for c in cmd.ctors:
                    arg_names = [n for b in c.binders for n in (b.names or ["_"])]
                    arg_types = [type_of_text(b.type_text) for b in c.binders for _ in (b.names or ["_"])]
                    info = CtorInfo(name=f"{name}.{c.name}", type_name=name, arg_types=arg_types, arg_names=arg_names)
                    if not c.binders and c.type is not None:
                        # `| node : Tree → Nat → Tree → Tree`: arity from the arrow chain
                        t = c.type
                        while isinstance(t, A.Arrow):
                            info.arg_names.append("_")
                            info.arg_types.append(None)
                            t = t.cod
                    ctors.append(info)
                    env.ctors[info.name] = info
                env.inductives[name] = IndInfo(name=name, params=[n for b in cmd.params for n in b.names],
                                               ctors=ctors, deriving=set(cmd.deriving), cmd=cmd, scope=scope)
            elif isinstance(cmd, A.InstanceCmd):
                cls_name, type_name = _instance_head(cmd.type)
                methods = {}
                for m in cmd.methods:
                    d = UserDef(name=f"instance.{cls_name}.{type_name}.{m.name}", cmd=m, namespace=ns,
                                opens=tuple(opens), scope=scopes.scope_of(m))
                    methods[m.name] = d
                env.instances.append(InstanceInfo(class_name=cls_name, type_name=type_name, methods=methods,
                                                  body=cmd.body, cmd=cmd, namespace=ns, scope=scope))
        env.opens = opens

    def _full_name(self, cmd: A.DefCmd | A.StructureCmd | A.InductiveCmd) -> str:
        """The name Lean declares ``cmd`` under; a declaration Lean rejects (already declared)
        keeps the name it asked for, so the compiler can still find and report it."""
        assert self.env.scopes is not None
        for d in self.env.scopes.declared_by(cmd):
            if d.kind not in ("ctor", "field", "aux"):
                return d.name
        scope = self.env.scopes.scope_of(cmd)
        base = cmd.name.split(".")[-1] if not cmd.name.startswith("_root_.") else cmd.name[len("_root_."):]
        return f"{scope.namespace}.{base}" if scope is not None and scope.namespace and \
            not cmd.name.startswith("_root_.") else base

    def _add_def(self, cmd: A.DefCmd, opens: tuple[str, ...]) -> None:
        env = self.env
        assert env.scopes is not None
        name = self._full_name(cmd)
        scope = env.scopes.scope_of(cmd)
        if name in env.defs:
            return  # Lean keeps the first declaration (the second is "already declared")
        self._register(cmd, name, scope.namespace if scope is not None else "", scope, opens)
        for helper in cmd.where:
            # the compiler finds a `where` helper as `<name>.<helper>` from the parent's name
            self._register(helper, f"{name}.{helper.name}", name, env.scopes.scope_of(helper), opens)

    def _register(self, cmd: A.DefCmd, name: str, namespace: str, scope: ScopeState | None,
                  opens: tuple[str, ...]) -> None:
        d = UserDef(name=name, cmd=cmd, namespace=namespace, opens=opens, scope=scope)
        d.reducible = "reducible" in cmd.modifiers.attributes
        d.returns_prop = cmd.type_text.strip() == "Prop" or (
            isinstance(cmd.type, A.Sort) and cmd.type.name == "Prop")
        self.env.defs[name] = d


def _legacy_opens(cmd: A.OpenCmd) -> list[str]:
    """The namespaces the compiler's pre-resolution lookup opens for an ``open``: those opened
    whole (``open A B``, ``open A hiding x``)."""
    return list(cmd.names) if cmd.kind in ("all", "hiding") else []


def _instance_head(ty: A.Node) -> tuple[str, str | None]:
    if isinstance(ty, A.App) and isinstance(ty.fn, A.Ident):
        arg = ty.args[0] if ty.args else None
        if isinstance(arg, A.Paren):
            arg = arg.term
        if isinstance(arg, A.App):
            arg = arg.fn
        return ty.fn.name, arg.name if isinstance(arg, A.Ident) else None
    if isinstance(ty, A.Ident):
        return ty.name, None
    return "?", None


_CACHE: OrderedDict[str, Program] = OrderedDict()
_CACHE_SIZE = 64


def cached_program(text: str) -> Program:
    prog = _CACHE.get(text)
    if prog is not None:
        _CACHE.move_to_end(text)
        return prog
    prog = Program(text)
    _CACHE[text] = prog
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return prog


__all__ = ["Program", "cached_program"]
