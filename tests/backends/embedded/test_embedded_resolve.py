"""Name resolution as Lean 4 does it (veriscale.backends.embedded.resolve).

Each test states Lean's behaviour on a snippet and names the Lean source function that decides
it (Lean v4.24: src/Lean/ResolveName.lean, src/Lean/Elab/{BuiltinCommand,Open,Declaration,
DeclModifiers,LetRec,Term,App}.lean). The snippets are parsed by the engine's parser and walked
by the scope walker; the assertions are on what an identifier resolves to where it is used.
"""

from __future__ import annotations

import pytest

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded import resolve as R
from veriscale.backends.embedded.parser import parse_file
from veriscale.backends.embedded.program import Program


def walk(src: str, mathlib: bool = False) -> R.FileScopes:
    return R.walk_scopes(parse_file(src).commands, has_mathlib=mathlib)


def in_body(fs: R.FileScopes, decl: str, name: str) -> list[tuple[str, tuple[str, ...]]]:
    """What ``name`` denotes inside the body of ``decl``: locals (its auxiliary declarations)
    first, then globals, as ``(name, fields)`` with locals marked ``local:``."""
    d = fs.declarations.lookup(decl)
    assert d is not None and d.scope is not None, decl
    cands = R.resolve_name(name, R.aux_locals(d, fs.declarations), d.scope, fs.declarations)
    return [(("local:" if c.is_local else "") + (c.local.full_name or c.name if c.local else c.name), c.fields)
            for c in cands]


def globals_in(fs: R.FileScopes, decl: str, name: str) -> list[str]:
    d = fs.declarations.lookup(decl)
    assert d is not None and d.scope is not None
    return [n for n, _ in R.resolve_global(name, d.scope, fs.declarations)]


def messages(fs: R.FileScopes) -> list[str]:
    return [d.message for d in fs.errors]


# -- the command forms the parser reads ------------------------------------------------------


def test_parser_reads_the_open_and_export_forms() -> None:
    """The parser reads ``Lean.Parser.Command.openDecl``'s forms (``openSimple``, ``openScoped``,
    ``openOnly``, ``openHiding``, ``openRenaming`` with ``→`` or ``->``), ``export A (x)``, and
    an ``open … in`` prefix in any of these forms."""
    cmds = parse_file("open A B\nopen scoped C\nopen D (x y)\nopen E hiding x y\nopen F renaming a → b, c -> d\n"
                      "export G (x)\nopen H (z) in\ndef f := z\n").commands
    assert [(c.kind, c.names, c.idents, c.renames) for c in cmds[:5]] == [
        ("all", ["A", "B"], [], []), ("scoped", ["C"], [], []), ("only", ["D"], ["x", "y"], []),
        ("hiding", ["E"], ["x", "y"], []), ("renaming", ["F"], [], [("a", "b"), ("c", "d")])]
    assert isinstance(cmds[5], A.ExportCmd) and (cmds[5].namespace, cmds[5].idents) == ("G", ["x"])
    assert cmds[6].decl is not None and cmds[6].decl.kind == "only" and isinstance(cmds[6].command, A.DefCmd)
    assert not any(isinstance(c, A.CommandError) for c in cmds)


# -- namespaces and sections -----------------------------------------------------------------


def test_enclosing_namespaces_innermost_first() -> None:
    """Lean: in namespace ``A.B.C``, ``x`` is ``A.B.C.x`` when it exists, otherwise the next
    enclosing namespace's ``A.x``; after ``end C`` it is ``A.x``.
    Decided by ``resolveUsingNamespace`` (Lean/ResolveName.lean) over the namespace pushed per
    component by ``addNamespace`` (Lean/Elab/BuiltinCommand.lean)."""
    fs = walk("namespace A\ndef x := 1\nnamespace B\nnamespace C\ndef x := 2\ndef u := x\nend C\ndef v := x\n")
    assert globals_in(fs, "A.B.C.u", "x") == ["A.B.C.x"]
    assert globals_in(fs, "A.B.v", "x") == ["A.x"]


def test_enclosing_namespace_beats_open() -> None:
    """Lean: a name of an enclosing namespace wins over an opened one (``B.x``, not ambiguous
    with ``A.x``). ``resolveGlobalName`` returns ``resolveUsingNamespace``'s answer before it
    looks at the open declarations."""
    fs = walk("namespace A\ndef x := 1\nend A\nnamespace B\ndef x := 2\nnamespace C\nopen A\ndef u := x\n")
    assert globals_in(fs, "B.C.u", "x") == ["B.x"]


def test_open_in_section_ends_with_section() -> None:
    """Lean: ``section … open Cheat … end`` -- the open is gone after ``end``. Each scope starts
    with the enclosing scope's open declarations and ``elabEnd`` pops it (``addScope``/
    ``popScopes``, Lean/Elab/BuiltinCommand.lean)."""
    src = ("def Cheat.max (a b : Nat) : Nat := a + b\n"
           "section\nopen Cheat\ndef f (a b : Nat) : Nat := max a b\nend\n"
           "def g (a b : Nat) : Nat := max a b\n")
    fs = walk(src)
    assert sorted(globals_in(fs, "f", "max")) == ["Cheat.max", "max"]  # ambiguous inside
    assert globals_in(fs, "g", "max") == ["max"]
    assert messages(fs) == []


def test_open_in_namespace_ends_with_namespace() -> None:
    """Lean: an ``open`` inside ``namespace N … end N`` ends with it (same scope stack,
    ``elabNamespace``/``elabEnd``)."""
    fs = walk("def Cheat.bump (n : Nat) : Nat := n\nnamespace N\nopen Cheat\ndef f := bump 1\nend N\ndef g := bump 1\n")
    assert globals_in(fs, "N.f", "bump") == ["Cheat.bump"]
    assert globals_in(fs, "g", "bump") == []


@pytest.mark.parametrize(("src", "message"), [
    ("namespace A\nsection B\nend A\n", "Invalid name after `end`: Expected `B`, but found `A`"),
    ("namespace A\nend\n", "Missing name after `end`: Expected the current scope name `A`"),
    ("end\n", "Invalid `end`: There is no current scope to end"),
    ("section\nend S\n", "Unexpected name `S` after `end`: The current section is unnamed"),
    ("namespace A\nend A.B\n", "Invalid name after `end`: `A.B` contains too many components"),
])
def test_end_must_match_its_scope(src: str, message: str) -> None:
    """Lean: ``end`` must name the innermost scopes (a section may be unnamed); a wrong ``end``
    is an error and closes nothing. Decided by ``elabEnd`` (Lean/Elab/BuiltinCommand.lean),
    which checks before ``popScopes``."""
    fs = walk(src)
    assert messages(fs) == [message]


def test_wrong_end_closes_nothing() -> None:
    """Lean: after a rejected ``end A`` the section is still open (``elabEnd`` throws before it
    drops any scope), so a following ``end`` closes it and ``end A`` then closes ``A``."""
    fs = walk("namespace A\nsection S\nend A\ndef f := 1\nend S\nend A\n")
    assert messages(fs) == ["Invalid name after `end`: Expected `S`, but found `A`"]
    assert fs.declarations.lookup("A.f") is not None


def test_dotted_namespace_and_end() -> None:
    """Lean: ``namespace A.B`` opens two scopes; ``end A.B`` or ``end B`` then ``end A`` close
    them (``addScopes`` per component, ``elabEnd`` with ``endSize`` components)."""
    assert messages(walk("namespace A.B\ndef x := 1\nend A.B\n")) == []
    fs = walk("namespace A.B\ndef x := 1\nend B\ndef y := x\nend A\n")
    assert messages(fs) == []
    assert globals_in(fs, "A.y", "x") == []  # `A.B.x` is not reachable as `x` from `A`
    assert globals_in(fs, "A.y", "B.x") == ["A.B.x"]


def test_named_section_keeps_namespace() -> None:
    """Lean: ``section S`` does not change the namespace; ``end S`` closes it (``elabSection``
    uses ``addScopes (isNewNamespace := false)``)."""
    fs = walk("namespace N\nsection S\ndef a := 1\nend S\ndef b := a\nend N\n")
    assert messages(fs) == []
    assert fs.declarations.lookup("N.a") is not None and globals_in(fs, "N.b", "a") == ["N.a"]


def test_open_after_use_does_not_apply() -> None:
    """Lean: commands are elaborated in order; an ``open`` after a definition does not affect
    it, and a definition cannot use a later one (``elabCommand`` runs each command against the
    scope and environment of that moment)."""
    src = ("def Cheat.max (a b : Nat) : Nat := a + b\n"
           "def f (a b : Nat) : Nat := max a b\n"
           "def early := later\n"
           "open Cheat\n"
           "def later := 1\n"
           "def g (a b : Nat) : Nat := max a b\n")
    fs = walk(src)
    assert globals_in(fs, "f", "max") == ["max"]
    assert globals_in(fs, "early", "later") == []
    assert globals_in(fs, "g", "max") == ["Cheat.max", "max"]


def test_open_in_scopes_one_command() -> None:
    """Lean: ``open X in cmd`` is ``section open X cmd end`` (``expandInCmd``,
    Lean/Elab/BuiltinCommand.lean)."""
    fs = walk("def Cheat.bump (n : Nat) : Nat := n\nopen Cheat in\ndef f := bump 1\ndef g := bump 1\n")
    assert globals_in(fs, "f", "bump") == ["Cheat.bump"]
    assert globals_in(fs, "g", "bump") == []


# -- the forms of open -----------------------------------------------------------------------


def test_open_explicit_names() -> None:
    """Lean: ``open Cheat (foo)`` makes ``foo`` (only) stand for ``Cheat.foo`` -- even a
    protected one, since ``resolveId`` checks ``env.contains`` -- through
    ``OpenDecl.explicit`` (``elabOpenDecl``, Lean/Elab/Open.lean)."""
    src = ("namespace Cheat\ndef foo := 1\ndef bar := 2\nprotected def max (a b : Nat) : Nat := a\nend Cheat\n"
           "open Cheat (foo max)\ndef f := foo + bar\n")
    fs = walk(src)
    assert globals_in(fs, "f", "foo") == ["Cheat.foo"]
    assert globals_in(fs, "f", "bar") == []
    assert globals_in(fs, "f", "max") == ["Cheat.max", "max"]


def test_open_hiding() -> None:
    """Lean: ``open Cheat hiding max`` opens everything of ``Cheat`` but ``max``, so ``max`` is
    the root one (``OpenDecl.simple Cheat [max]``, skipped by ``resolveOpenDecls`` for that id).
    Hiding a name ``Cheat`` lacks is an error (``resolveId``)."""
    src = "def Cheat.max (a b : Nat) : Nat := a + b\ndef Cheat.bump (n : Nat) : Nat := n\nopen Cheat hiding max\n" \
          "def f (a b : Nat) : Nat := max (bump a) b\n"
    fs = walk(src)
    assert globals_in(fs, "f", "max") == ["max"]
    assert globals_in(fs, "f", "bump") == ["Cheat.bump"]
    fs = walk("def Cheat.bump (n : Nat) : Nat := n\nopen Cheat hiding nothere\ndef f := bump 1\n")
    assert messages(fs) == ["unknown constant 'Cheat.nothere'"]
    assert globals_in(fs, "f", "bump") == []  # the failed open had no effect


def test_open_renaming() -> None:
    """Lean: ``open Cheat renaming foo → bar`` adds only ``bar ↦ Cheat.foo``
    (``OpenDecl.explicit``, ``elabOpenDecl``)."""
    fs = walk("def Cheat.foo := 1\nopen Cheat renaming foo → bar\ndef f := bar\n")
    assert globals_in(fs, "f", "bar") == ["Cheat.foo"]
    assert globals_in(fs, "f", "foo") == []


def test_open_unknown_namespace() -> None:
    """Lean: ``open`` of a name that is no namespace is "unknown namespace" (``resolveNamespace``,
    Lean/ResolveName.lean). For a namespace of the file the engine is sure; for any other it
    cannot be (Lean's library has namespaces the engine does not list)."""
    fs = walk("namespace Cheat\ndef a := 1\nend Cheat\nopen Cheat.Nope\n")
    assert messages(fs) == ["unknown namespace 'Cheat.Nope'"]
    fs = walk("open Nope\n")
    assert fs.errors == [] and [d.message for d in fs.diagnostics] == ["unknown namespace 'Nope'"]


def test_open_namespace_relative_to_current() -> None:
    """Lean: inside ``namespace A``, ``open B`` opens ``A.B`` when that namespace exists
    (``resolveNamespaceUsingScope?``)."""
    fs = walk("namespace A\ndef B.k := 1\nopen B\ndef f := k\nend A\n")
    assert globals_in(fs, "A.f", "k") == ["A.B.k"]


# -- protected, private, export, _root_ ------------------------------------------------------


def test_protected_not_opened_for_atomic_access() -> None:
    """Lean: ``protected def Cheat.max`` + ``open Cheat``: ``max a b`` is the root ``max``;
    ``Cheat.max`` still works. ``resolveQualifiedName`` skips a protected declaration reached
    by an atomic identifier -- through an open or an enclosing namespace alike."""
    src = ("protected def Cheat.max (a b : Nat) : Nat := a + b\nopen Cheat\n"
           "def f (a b : Nat) : Nat := max a b\ndef g (a b : Nat) : Nat := Cheat.max a b\n"
           "namespace Cheat\ndef h (a b : Nat) : Nat := max a b\nend Cheat\n")
    fs = walk(src)
    assert fs.declarations.lookup("Cheat.max").protected
    assert globals_in(fs, "f", "max") == ["max"]
    assert globals_in(fs, "g", "Cheat.max") == ["Cheat.max"]
    assert globals_in(fs, "Cheat.h", "max") == ["max"]


def test_protected_reached_by_non_atomic_suffix() -> None:
    """Lean: the protection is only against atomic identifiers: with ``open A``, ``B.f`` reaches
    ``protected def A.B.f`` (``resolveQualifiedName``: ``!id.isAtomic``)."""
    fs = walk("namespace A\nprotected def B.f := 1\nend A\nopen A\ndef g := B.f\n")
    assert globals_in(fs, "g", "B.f") == ["A.B.f"]


def test_core_protected_names_after_open_nat() -> None:
    """Lean: ``Nat.max``/``Nat.add`` are protected (Init/Data/Nat/Basic.lean, Init/Prelude.lean),
    ``Nat.succ``/``Nat.pred`` are not: after ``open Nat``, ``max`` is only the root ``max``,
    ``add`` is unknown, ``succ`` and ``pred`` are ``Nat``'s (``resolveQualifiedName``)."""
    fs = walk("open Nat\ndef f (a : Nat) : Nat := max (succ a) (pred a)\n")
    assert globals_in(fs, "f", "max") == ["max"]
    assert globals_in(fs, "f", "add") == []
    assert globals_in(fs, "f", "succ") == ["Nat.succ"]
    assert globals_in(fs, "f", "pred") == ["Nat.pred"]


def test_protected_needs_a_namespace() -> None:
    """Lean: ``protected def foo`` at the root is rejected: "protected declarations must be in a
    namespace" (``mkDeclName``, Lean/Elab/DeclModifiers.lean)."""
    assert messages(walk("protected def foo := 1\n")) == ["protected declarations must be in a namespace"]


def test_private_names() -> None:
    """Lean: a private declaration is found like a public one in its file (the private version
    is tried when the public one is missing: ``resolveQualifiedName``/``resolveExact``), and a
    private and a public declaration of one name clash (``checkNotAlreadyDeclared``). The
    private branch does not check ``protected``."""
    src = ("namespace Cheat\nprivate def secret := 1\nprivate protected def hidden := 2\nend Cheat\n"
           "open Cheat\ndef f := secret + Cheat.secret + hidden\n")
    fs = walk(src)
    assert globals_in(fs, "f", "secret") == ["Cheat.secret"]
    assert globals_in(fs, "f", "Cheat.secret") == ["Cheat.secret"]
    assert globals_in(fs, "f", "hidden") == ["Cheat.hidden"]
    fs = walk("private def a := 1\ndef a := 2\n")
    assert messages(fs) == ["a private declaration `a` has already been declared"]


def test_export_makes_an_alias() -> None:
    """Lean: ``export A (x)`` inside namespace ``B`` adds the alias ``B.x ↦ A.x`` (``elabExport``);
    aliases are consulted by ``resolveGlobalName``/``resolveQualifiedName``: ``B.x`` and, after
    ``open B``, ``x``. Exporting from the current namespace is "invalid 'export', self export"."""
    src = "def A.x := 1\nnamespace B\nexport A (x)\nend B\ndef f := B.x\nopen B\ndef g := x\n"
    fs = walk(src)
    assert globals_in(fs, "f", "B.x") == ["A.x"]
    assert globals_in(fs, "g", "x") == ["A.x"]
    assert messages(walk("namespace A\ndef x := 1\nexport A (x)\nend A\n")) == ["invalid 'export', self export"]


def test_root_prefix() -> None:
    """Lean: ``def _root_.foo`` inside ``namespace Cheat`` declares ``foo`` (``mkDeclName``) but
    its body is still elaborated in ``Cheat`` (``expandDeclNamespace?`` leaves ``_root_`` names
    alone); ``_root_.width`` names the root declaration exactly (``resolveExact``) even where
    ``Cheat.width`` would win -- but ``_root_.max`` names nothing, since Lean's ``max`` is only
    the alias of ``export Max (max)`` and ``resolveExact`` takes declarations."""
    src = "def width (a : Nat) : Nat := a\n" \
          "namespace Cheat\ndef max (a b : Nat) : Nat := a\ndef _root_.foo (a b : Nat) : Nat := max a b\n" \
          "def width (a : Nat) : Nat := 0\ndef g (a b : Nat) : Nat := _root_.max a b\nend Cheat\n"
    fs = walk(src)
    foo = fs.declarations.lookup("foo")
    assert foo is not None and fs.declarations.lookup("Cheat.foo") is None
    assert foo.scope is not None and foo.scope.namespace == "Cheat"
    assert globals_in(fs, "foo", "max") == ["Cheat.max"]
    assert globals_in(fs, "Cheat.g", "_root_.max") == []
    assert globals_in(fs, "Cheat.g", "_root_.width") == ["width"]
    assert messages(walk("def _root_ := 1\n")) == [
        "invalid declaration name `_root_`, `_root_` is a prefix used to refer to the `root` namespace"]


# -- declaration names and where they are elaborated -----------------------------------------


@pytest.mark.parametrize(("decl", "use"), [
    ("abbrev False : Prop := True", "False"),
    ("abbrev True : Prop := False", "True"),
    ("def decide (p : Prop) : Bool := true", "decide"),
    ("def id (n : Nat) : Nat := n + 1", "id"),
    ("def ite (c : Prop) (a b : Nat) : Nat := a", "ite"),
    ("def some (n : Nat) : Option Nat := none", "some"),
    ("def Int.toNat (i : Int) : Nat := 7", "Int.toNat"),
    ("def Nat.succ (n : Nat) : Nat := n", "Nat.succ"),
])
def test_user_declaration_shadows_core_name_inside_namespace(decl: str, use: str) -> None:
    """Lean: ``namespace Cheat <decl X> … def escape := … X …`` -- inside ``Cheat`` the
    identifier ``X`` is ``Cheat.X``, not the core one (``resolveUsingNamespace`` looks in the
    enclosing namespaces before the root, the exact name, the opens and the aliases such as
    ``export Bool``/``Option``/``Decidable``); outside the namespace it is the core ``X``."""
    fs = walk(f"namespace Cheat\n{decl}\ndef escape := 0\nend Cheat\ndef outside := 0\n")
    assert messages(fs) == []
    assert globals_in(fs, "Cheat.escape", use) == [f"Cheat.{use}"]
    outside = globals_in(fs, "outside", use)
    assert outside and all(not n.startswith("Cheat.") for n in outside)


def test_dotted_definition_is_elaborated_in_its_namespace() -> None:
    """Lean: ``def Cheat.escape`` is ``namespace Cheat def escape end Cheat``
    (``expandNamespacedDeclaration``/``expandDeclNamespace?``, Lean/Elab/Declaration.lean), so its
    body sees ``Cheat.False`` as ``False``."""
    fs = walk("abbrev Cheat.False : Prop := True\ndef Cheat.escape : Prop := False\n")
    d = fs.declarations.lookup("Cheat.escape")
    assert d is not None and d.scope is not None and d.scope.namespace == "Cheat"
    assert globals_in(fs, "Cheat.escape", "False") == ["Cheat.False"]


def test_where_helper_namespace_and_max() -> None:
    """Lean: for ``def pick.max …`` and ``def pick … where go … max …``: ``pick``'s body is
    elaborated in the namespace of its command (the root: ``pick`` is atomic, so no
    ``expandDeclNamespace?``); ``go`` becomes ``let rec go`` named ``pick.go``
    (``mkLetRecDeclView``: ``currDeclName ++ shortDeclName``) and its body is elaborated with
    ``withDeclName pick.go`` only (``elabLetRecDeclValues``), which does not change the
    namespace. So ``max`` in ``pick.go`` resolves from the root: the core ``max``, not
    ``pick.max``. ``go`` (and ``pick.go``) reach the helper as an auxiliary local
    (``resolveLocalName``/``matchAuxRecDecl?``); inside ``pick.max``'s own body ``max`` is the
    recursive auxiliary declaration."""
    src = ("def pick.max (a b : Nat) : Nat := a\n"
           "def pick (a b : Nat) : Nat := go a b\nwhere\n  go (a b : Nat) : Nat := max a b\n")
    fs = walk(src)
    assert fs.declarations.lookup("pick.go").kind == "where"
    for decl in ("pick", "pick.go"):
        assert fs.declarations.lookup(decl).scope.namespace == ""
        assert in_body(fs, decl, "max") == [("max", ())]
        assert in_body(fs, decl, "go") == [("local:pick.go", ())]
        assert in_body(fs, decl, "pick.go") == [("local:pick.go", ())]
    assert in_body(fs, "pick", "pick.max") == [("pick.max", ())]
    assert in_body(fs, "pick.max", "max") == [("local:pick.max", ())]


def test_where_helper_of_namespaced_definition() -> None:
    """Lean: in ``def Foo.pick … where go``, inside namespace ``Foo`` the helper
    ``Foo.pick.go`` is reached as ``go``, ``pick.go`` or ``Foo.pick.go`` (the relaxed suffix
    match of ``matchAuxRecDecl?``, Lean/Elab/Term.lean)."""
    fs = walk("def Foo.pick (n : Nat) : Nat := go n\nwhere\n  go (n : Nat) : Nat := n\n")
    for name in ("go", "pick.go", "Foo.pick.go"):
        assert in_body(fs, "Foo.pick", name) == [("local:Foo.pick.go", ())]


def test_let_rec_is_named_under_its_definition() -> None:
    """Lean: ``let rec loop`` in ``f`` declares ``f.loop`` (``mkLetRecDeclView``)."""
    fs = walk("def f (n : Nat) : Nat :=\n  let rec loop : Nat → Nat\n    | 0 => 0\n    | k + 1 => loop k\n  loop n\n")
    d = fs.declarations.lookup("f.loop")
    assert d is not None and d.kind == "let rec" and d.parent == "f"


def test_redeclaring_an_existing_name() -> None:
    """Lean: a declaration whose name exists is rejected, "`X` has already been declared"
    (``checkNotAlreadyDeclared``). ``List.minimum`` exists with ``import Mathlib``, not in core;
    ``List.length`` exists in core; a file cannot declare a name twice."""
    assert messages(walk("def List.minimum (xs : List Nat) : Nat := 0\n", mathlib=True)) == [
        "`List.minimum` has already been declared"]
    assert messages(walk("def List.minimum (xs : List Nat) : Nat := 0\n")) == []
    assert messages(walk("def List.length (xs : List Nat) : Nat := 0\n")) == ["`List.length` has already been declared"]
    assert messages(walk("def f := 1\ndef f := 2\n")) == ["`f` has already been declared"]


def test_structure_and_inductive_declarations() -> None:
    """Lean: ``structure S`` declares ``S``, its constructor ``S.mk`` (or the named one) and a
    projection per field; ``inductive T`` declares its constructors ``T.c``; ``def S.x`` for a
    field ``x`` is "invalid declaration name" (``checkIfShadowingStructureField``). After
    ``open Tree``, ``leaf`` is ``Tree.leaf`` (constructors are not protected)."""
    src = ("structure S where\n  x : Nat\n  y : Nat\nstructure P where\n  mkP ::\n  a : Nat\n"
           "inductive Tree where\n  | leaf : Tree\n  | node : Tree → Tree → Tree\nopen Tree\ndef t := leaf\n")
    fs = walk(src)
    for n in ("S", "S.mk", "S.x", "S.y", "P.mkP", "P.a", "Tree", "Tree.leaf", "Tree.node"):
        assert fs.declarations.lookup(n) is not None, n
    assert globals_in(fs, "t", "leaf") == ["Tree.leaf"]
    assert messages(walk("structure S where\n  x : Nat\ndef S.x (s : S) : Nat := 0\n")) == [
        "invalid declaration name `S.x`, structure `S` has field `x`"]


# -- identifiers: locals, dotted names, fields, ambiguity ------------------------------------


def test_dotted_identifier_prefix_and_fields() -> None:
    """Lean: the longest prefix of a dotted identifier that resolves wins and the rest are field
    accesses (``resolveGlobalName``'s ``loop``): ``y.y.y`` is ``(y.y, [y])`` when ``y.y`` exists;
    ``xs.foldl`` with no global ``xs`` resolves to nothing globally."""
    fs = walk("def y : Nat := 1\ndef y.y : Nat := 2\ndef u := 0\n")
    d = fs.declarations.lookup("u")
    assert R.resolve_global("y.y.y", d.scope, fs.declarations) == [("y.y", ("y",))]
    assert R.resolve_global("y.z.w", d.scope, fs.declarations) == [("y", ("z", "w"))]
    assert R.resolve_global("xs.foldl", d.scope, fs.declarations) == []
    assert R.resolve_global("List.foldl", d.scope, fs.declarations) == [("List.foldl", ())]


def test_local_first_then_fields() -> None:
    """Lean: a local variable shadows globals, and ``x.foo`` with a local ``x`` is ``x`` with
    field ``foo`` even if a global ``x.foo`` exists (``resolveName`` tries ``resolveLocalName``
    first; regular locals are never skipped). A numeric component is a field index."""
    fs = walk("def x := 1\ndef x.foo := 2\ndef u := 0\n")
    d = fs.declarations.lookup("u")
    locs = [R.Local("x"), R.Local("xs")]
    assert R.resolve_name("x", locs, d.scope, fs.declarations) == [R.Candidate("x", (), R.Local("x"))]
    assert R.resolve_name("x.foo", locs, d.scope, fs.declarations) == [R.Candidate("x", ("foo",), R.Local("x"))]
    assert R.resolve_name("xs.foldl", locs, d.scope, fs.declarations) == [
        R.Candidate("xs", ("foldl",), R.Local("xs"))]
    assert R.resolve_name("x.foo", [], d.scope, fs.declarations) == [R.Candidate("x.foo")]
    assert R.resolve_name("p.1.foo", [R.Local("p")], d.scope, fs.declarations) == [
        R.Candidate("p", ("1", "foo"), R.Local("p"))]


def test_recursive_function_is_not_a_field_base() -> None:
    """Lean: inside ``def foo``, ``foo.aux`` is the global ``foo.aux``, not field ``aux`` of the
    recursive ``foo`` (``resolveLocalName`` skips auxiliary declarations once a global name was
    found for a longer prefix)."""
    fs = walk("def foo.aux := 1\ndef foo (n : Nat) : Nat := foo.aux\n")
    assert in_body(fs, "foo", "foo.aux") == [("foo.aux", ())]
    assert in_body(fs, "foo", "foo") == [("local:foo", ())]


def test_ambiguity_reported_as_lean_does() -> None:
    """Lean: with ``open A`` and ``open B`` and both ``A.x`` and ``B.x``, ``x`` has both
    interpretations; elaborating both succeeds, so Lean reports "ambiguous, possible
    interpretations" listing ``B.x`` then ``A.x`` (``elabAppAux``, Lean/Elab/App.lean; the list
    comes from ``resolveGlobalName`` and ``mkConsts`` reverses it)."""
    fs = walk('def A.x := "A.x"\ndef B.x := "B.x"\nopen A\nopen B\ndef u := x\n')
    found = globals_in(fs, "u", "x")
    assert found == ["A.x", "B.x"]
    msg = R.ambiguity_message([(n, "String") for n in found])
    assert msg.splitlines()[0].strip() == "ambiguous, possible interpretations"
    assert [ln.strip() for ln in msg.splitlines()[1:] if ln.strip()] == ["B.x : String", "A.x : String"]


def test_field_notation_by_head_namespace() -> None:
    """Lean: ``e.f`` with ``e : C …`` is a structure projection when ``f`` is a field of ``C``
    (or a parent), else the declaration ``C.f`` exactly -- no namespaces, no opens -- (public or
    private), else a parent's ``P.f``, else an alias; a function's ``e.f`` tries ``Function.f``
    (``resolveLValAux``/``findMethod?``, Lean/Elab/App.lean). So a user ``def List.minimum``
    makes ``xs.minimum`` that function, while ``Cheat.List.foo`` does not give ``xs.foo``."""
    src = ("def List.minimum (xs : List Nat) : Nat := 0\nnamespace Cheat\ndef List.foo (xs : List Nat) : Nat := 0\n"
           "end Cheat\nstructure Pt where\n  x : Nat\nstructure Pt3 extends Pt where\n  z : Nat\n"
           "def Pt.norm (p : Pt) : Nat := p.x\nprivate def Pt.secret (p : Pt) : Nat := 0\n")
    decls = walk(src).declarations
    assert R.resolve_field("List", "minimum", decls) == R.FieldResolution("const", "List.minimum")
    assert R.resolve_field("List", "foo", decls) is None
    assert R.resolve_field("List", "foldl", decls) == R.FieldResolution("const", "List.foldl")
    assert R.resolve_field("Pt", "x", decls) == R.FieldResolution("projection", "Pt.x")
    assert R.resolve_field("Pt3", "x", decls) == R.FieldResolution("projection", "Pt.x")
    assert R.resolve_field("Pt3", "norm", decls) == R.FieldResolution("const", "Pt.norm")
    assert R.resolve_field("Pt", "secret", decls) == R.FieldResolution("const", "Pt.secret")
    assert R.resolve_field("Prod", "fst", decls) == R.FieldResolution("projection", "Prod.fst")
    assert R.resolve_field(None, "comp", decls, is_function=True) == R.FieldResolution("function", "Function.comp")
    rec = R.Local("mySum", "List.mySum")
    assert R.resolve_field("List", "mySum", decls, locals_=[rec]) == R.FieldResolution("local", "List.mySum", rec)


def test_dot_identifier_by_expected_type() -> None:
    """Lean: ``.name`` at expected type ``C …`` is ``C.name`` if declared (public), else the
    same with the unfolded type (``resolveDotName``, Lean/Elab/App.lean)."""
    decls = walk("def Option.cheat : Option Nat := none\ndef MyList := List Nat\n").declarations
    assert R.resolve_dot_ident("some", ["Option"], decls) == "Option.some"
    assert R.resolve_dot_ident("cheat", ["Option"], decls) == "Option.cheat"
    assert R.resolve_dot_ident("nil", ["MyList", "List"], decls) == "List.nil"
    assert R.resolve_dot_ident("nope", ["Option"], decls) is None


# -- the engine's index uses the walker ------------------------------------------------------


def test_program_index_records_lean_scopes() -> None:
    """The program index names declarations as Lean does (``mkDeclName``; sections do not change
    the namespace: ``elabSection``) and gives each definition its scope; the legacy fields keep
    their meaning for the compiler (a ``where`` helper's lookup root is its parent's name)."""
    src = ("namespace N\nsection S\nopen Nat\ndef f (a : Nat) : Nat := go a\nwhere\n  go (a : Nat) : Nat := succ a\n"
           "end S\ndef _root_.g := 1\nend N\n")
    env = Program(src).env
    assert set(env.defs) == {"N.f", "N.f.go", "g"}
    f, go, g = env.defs["N.f"], env.defs["N.f.go"], env.defs["g"]
    assert f.namespace == "N" and go.namespace == "N.f"
    assert f.scope is not None and f.scope.namespace == "N" and f.scope.opened_namespaces == ("Nat",)
    assert go.scope == f.scope
    assert g.scope is not None and g.scope.namespace == "N" and g.scope.opened_namespaces == ()
    assert env.scopes is not None and env.scopes.errors == []
    assert isinstance(env.scopes.commands[0][0], A.NamespaceCmd)


def test_program_keeps_first_of_duplicate_definitions() -> None:
    """Lean keeps the first of two declarations of one name and rejects the second
    (``checkNotAlreadyDeclared``); the index does the same and the walker reports it."""
    env = Program("def f : Nat := 1\ndef f : Nat := 2\n").env
    assert env.defs["f"].cmd.line == 1
    assert env.scopes is not None and [d.message for d in env.scopes.errors] == ["`f` has already been declared"]
