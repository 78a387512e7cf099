"""Commands (``def``/``abbrev``, ``instance``, ``structure``/``class``, ``inductive``, ``open``,
``export``, ``namespace``/``section``/``end``, ``deriving instance``, skipped theorems) and the
splitting of a file into commands at column-0 command keywords."""

from __future__ import annotations

from dataclasses import dataclass

from veriscale.backends.embedded import ast as A
from veriscale.backends.embedded.parser.core import ParserCore
from veriscale.lean.lexer import COMMAND_KEYWORDS, EOF, IDENT, KEYWORD, SYM, Token

_COMMAND_KEYWORDS = COMMAND_KEYWORDS
_MODIFIER_KEYWORDS = frozenset({"private", "protected", "noncomputable", "partial", "unsafe", "local", "scoped"})
_NO_DOC_COMMANDS = ("open", "namespace", "section", "end", "export")
"""Commands whose syntax has no leading ``docComment?`` (Lean.Parser.Command.«open», «namespace»,
«section», «end», «export»): a ``/--`` before one of them is a parse error."""


class CommandsMixin(ParserCore):
    """Top-level commands and their modifiers."""

    # -- commands -------------------------------------------------------------------------

    def modifiers(self) -> A.Modifiers:
        mods = A.Modifiers()
        while True:
            t = self.tok
            if t.is_sym("@["):
                self.advance()
                depth = 1
                start = self.i
                while depth > 0:
                    if self.tok.kind == EOF:
                        raise self.error("unterminated attribute list")
                    if self.at_sym("[", "@[", "#["):
                        depth += 1
                    elif self.at_sym("]"):
                        depth -= 1
                        if depth == 0:
                            break
                    self.advance()
                text = self.text_from(start)
                self.advance()
                mods.attributes.extend(a.strip() for a in text.split(",") if a.strip())
            elif t.kind == KEYWORD and t.value in _MODIFIER_KEYWORDS:
                self.advance()
                if t.value in ("private", "protected", "noncomputable", "partial", "unsafe"):
                    setattr(mods, t.value, True)
            else:
                return mods

    def command(self) -> A.Node:
        if not self.tok.is_kw(*_NO_DOC_COMMANDS) and not self.tok.is_sym("#"):
            self.allow_doc()  # `declaration` (and the other commands with `docComment?`) begins with it
        mods = self.modifiers()
        t = self.tok
        if t.kind == KEYWORD:
            v = t.value
            if v in ("def", "abbrev"):
                return self.def_cmd(mods)
            if v in ("theorem", "lemma", "example", "axiom", "opaque"):
                self.advance()
                name = self.advance().value if self.tok.kind == IDENT else v
                # statements and proofs are not evaluated: skip the whole command
                while self.tok.kind != EOF:
                    self.advance()
                return A.DefCmd(t.line, t.col, v, name, [], None, "", None, modifiers=mods)
            if v == "instance":
                return self.instance_cmd(mods)
            if v in ("structure", "class"):
                if v == "class" and self.peek().is_kw("inductive"):
                    self.advance()
                    return self.inductive_cmd(mods)
                return self.structure_cmd(mods)
            if v == "inductive":
                return self.inductive_cmd(mods)
            if v == "open":
                self.advance()
                decl = self.open_decl(t)
                if self.at_kw("in"):
                    # `open Foo in <command>`: the opened names apply to the next command only
                    self.advance()
                    inner = self.command()
                    return _OpenIn(t.line, t.col, decl.names, inner, decl)
                return decl
            if v == "export":
                self.advance()
                ns = self.expect_ident().value
                self.expect_sym("(")
                idents = [self.expect_ident().value]
                while self.tok.kind == IDENT:
                    idents.append(self.advance().value)
                self.expect_sym(")")
                return A.ExportCmd(t.line, t.col, ns, idents)
            if v == "variable":
                self.advance()
                binders = self.decl_binders()
                if not binders or self.tok.kind != EOF:
                    raise self.error(f"unexpected {self.tok.describe()} in `variable`")
                return A.VariableCmd(t.line, t.col, binders)
            if v == "namespace":
                self.advance()
                return A.NamespaceCmd(t.line, t.col, self.expect_ident().value)
            if v == "section":
                self.advance()
                name = self.advance().value if self.tok.kind == IDENT else None
                return A.SectionCmd(t.line, t.col, name)
            if v == "end":
                self.advance()
                name = self.advance().value if self.tok.kind == IDENT else None
                return A.EndCmd(t.line, t.col, name)
            if v == "deriving":
                self.advance()
                self.expect_kw("instance")
                classes = [self.expect_ident().value]
                while self.at_sym(","):
                    self.advance()
                    classes.append(self.expect_ident().value)
                self.expect_kw("for")
                types = [self.expect_ident().value]
                while self.at_sym(","):
                    self.advance()
                    types.append(self.expect_ident().value)
                return A.DerivingCmd(t.line, t.col, classes, types)
            start = self.i
            while self.tok.kind != EOF:
                self.advance()
            return A.OtherCmd(t.line, t.col, v, self.text_from(start))
        if t.is_sym("#"):
            start = self.i
            while self.tok.kind != EOF:
                self.advance()
            return A.OtherCmd(t.line, t.col, "#", self.text_from(start))
        raise self.error(f"unexpected {t.describe()} at the start of a command")

    def open_decl(self, t: Token) -> A.OpenCmd:
        """The clause after ``open`` (``Lean.Parser.Command.openDecl``): ``A B``, ``scoped A B``,
        ``A (x y)``, ``A hiding x y``, ``A renaming x → y, z → w``."""
        if self.at_kw("scoped"):
            self.advance()
            names = [self.expect_ident().value]
            while self.tok.kind == IDENT:
                names.append(self.advance().value)
            return A.OpenCmd(t.line, t.col, names, "scoped")
        first = self.expect_ident().value
        if self.at_sym("("):
            self.advance()
            idents = [self.expect_ident().value]
            while self.tok.kind == IDENT:
                idents.append(self.advance().value)
            self.expect_sym(")")
            return A.OpenCmd(t.line, t.col, [first], "only", idents)
        if self.tok.kind == IDENT and self.tok.value == "hiding":
            self.advance()
            idents = [self.expect_ident().value]
            while self.tok.kind == IDENT:
                idents.append(self.advance().value)
            return A.OpenCmd(t.line, t.col, [first], "hiding", idents)
        if self.tok.kind == IDENT and self.tok.value == "renaming":
            self.advance()
            renames: list[tuple[str, str]] = []
            while True:
                src = self.expect_ident().value
                self.expect_sym("→")
                renames.append((src, self.expect_ident().value))
                if not self.at_sym(","):
                    break
                self.advance()
            return A.OpenCmd(t.line, t.col, [first], "renaming", renames=renames)
        names = [first]
        while self.tok.kind == IDENT:
            names.append(self.advance().value)
        return A.OpenCmd(t.line, t.col, names)

    def decl_name(self) -> str:
        return self.expect_ident().value

    def def_cmd(self, mods: A.Modifiers) -> A.DefCmd:
        t = self.advance()  # def / abbrev
        name = self.decl_name()
        binders = self.decl_binders()
        ty, text = self.type_ascription()
        return self.def_body(t, t.value, name, binders, ty, text, mods)

    def def_body(
        self, t: Token, kind: str, name: str, binders: list[A.Binder], ty: A.Node | None, text: str, mods: A.Modifiers
    ) -> A.DefCmd:
        value = self.decl_value()
        if value is None and not (self.at_kw("where") and kind == "instance"):
            raise self.error(f"expected ':=' or '|' in definition of {name}, found {self.tok.describe()}")
        body, alts = value or (None, None)
        hints = self.skip_termination_hints()
        measure, decreasing, binders_tb = self.last_measure, self.last_decreasing, self.last_binders
        where: list[A.DefCmd] = []
        if self.at_kw("where"):
            self.advance()
            where = self.where_decls()
        if self.at_kw("deriving"):
            self.advance()
            while self.tok.kind == IDENT or self.at_sym(","):
                self.advance()
        return A.DefCmd(t.line, t.col, kind, name, binders, ty, text, body, alts, where, mods, self.tok.line,
                        termination_hints=hints, termination_measure=measure, decreasing_tactic=decreasing,
                        termination_binders=binders_tb)

    def decl_value(self) -> tuple[A.Node | None, list[A.MatchAlt] | None] | None:
        """A declaration's ``:= term`` (as ``(term, None)``) or ``| alternatives`` (as ``(None, alts)``);
        ``None`` when neither follows."""
        if self.at_sym(":="):
            self.advance()
            return self.term(), None
        if self.at_sym("|"):
            return None, self.match_alts()
        return None

    def where_decls(self) -> list[A.DefCmd]:
        decls: list[A.DefCmd] = []
        if self.tok.kind == EOF:
            return decls
        col = self.tok.col
        saved = self.pos_col
        try:
            while self.tok.kind != EOF:
                self.pos_col = self.tok.col
                self.allow_doc()  # `letRecDecl := optional docComment >> …`
                mods = self.modifiers()
                nt = self.expect_ident()
                binders = self.decl_binders()
                ty, text = self.type_ascription()
                value = self.decl_value()
                if value is None:
                    raise self.error(f"expected ':=' or '|' in where-declaration {nt.value}")
                body, alts = value
                hints = self.skip_termination_hints()
                decls.append(A.DefCmd(nt.line, nt.col, "def", nt.value, binders, ty, text, body, alts, [], mods,
                                      termination_hints=hints, termination_measure=self.last_measure,
                                      decreasing_tactic=self.last_decreasing,
                                      termination_binders=self.last_binders))
                if self.at_sym(";"):
                    self.advance()
                if self.tok.kind == EOF or self.tok.col != col or not (self.tok.kind == IDENT or self.at_sym("@[")):
                    break
        finally:
            self.pos_col = saved
        return decls

    def instance_cmd(self, mods: A.Modifiers) -> A.Node:
        t = self.advance()  # instance
        if self.at_sym("("):
            # priority `(priority := low)`
            if self.peek().kind == IDENT and self.peek().value == "priority":
                while not self.at_sym(")"):
                    self.advance()
                self.advance()
        name = None
        if self.tok.kind == IDENT and not self.peek().is_sym(".") and self.peek().kind != IDENT and not self.peek().is_sym(":"):
            pass
        if self.tok.kind == IDENT and (self.peek().is_sym(":", "(", "{", "[", "⦃")):
            name = self.advance().value
        binders = self.decl_binders() if not self.at_sym(":") else []
        self.expect_sym(":")
        start = self.i
        ty = self.term()
        text = self.text_from(start)
        methods: list[A.DefCmd] = []
        body = None
        if self.at_kw("where"):
            self.advance()
            methods = self.where_decls()
        elif self.at_sym(":="):
            self.advance()
            body = self.term()
        else:
            raise self.error("expected 'where' or ':=' in instance")
        return A.InstanceCmd(t.line, t.col, name, binders, ty, text, methods, body, mods)

    def deriving_clause(self) -> list[str]:
        names: list[str] = []
        if self.at_kw("deriving"):
            self.advance()
            while self.tok.kind == IDENT:
                names.append(self.advance().value)
                if self.at_sym(","):
                    self.advance()
                    continue
                break
        return names

    def structure_cmd(self, mods: A.Modifiers) -> A.Node:
        t = self.advance()  # structure / class
        name = self.decl_name()
        params = self.decl_binders()
        extends: list[str] = []
        if self.at_kw("extends"):
            self.advance()
            while True:
                start = self.i
                self.term(51)
                extends.append(self.text_from(start))
                if self.at_sym(","):
                    self.advance()
                    continue
                break
        if self.at_sym(":"):
            self.advance()
            self.term()
        fields: list[A.StructField] = []
        ctor = "mk"
        if self.at_kw("where"):
            self.advance()
            if self.tok.kind == IDENT and self.peek().is_sym("::"):
                ctor = self.advance().value
                self.advance()
            while self.tok.kind == IDENT or self.at_sym("("):
                fields.extend(self.struct_field())
        deriving = self.deriving_clause()
        if self.tok.kind != EOF:
            raise self.error(f"unexpected {self.tok.describe()} in structure {name}")
        return A.StructureCmd(t.line, t.col, name, params, fields, deriving, extends, ctor, t.value == "class", mods)

    def struct_field(self) -> list[A.StructField]:
        self.allow_doc()  # a field begins with `declModifiers`
        t = self.tok
        if t.is_sym("("):
            b = self.bracketed_binder()
            return [A.StructField(b.line, b.col, n, [], b.type, b.type_text, b.default) for n in b.names]
        names: list[Token] = [self.expect_ident()]
        while self.tok.kind == IDENT and self.tok.line == t.line:
            names.append(self.advance())
        binders = self.decl_binders()
        ty = None
        text = ""
        if self.at_sym(":"):
            self.advance()
            saved = self.pos_col
            self.pos_col = t.col
            start = self.i
            ty = self.term()
            text = self.text_from(start)
            self.pos_col = saved
        default = None
        if self.at_sym(":="):
            self.advance()
            saved = self.pos_col
            self.pos_col = t.col
            default = self.term()
            self.pos_col = saved
        return [A.StructField(n.line, n.col, n.value, binders, ty, text, default) for n in names]

    def inductive_cmd(self, mods: A.Modifiers) -> A.Node:
        t = self.advance()  # inductive
        name = self.decl_name()
        params = self.decl_binders()
        if self.at_sym(":"):
            self.advance()
            self.term()
        if self.at_kw("where"):
            self.advance()
        ctors: list[A.CtorDecl] = []
        while self.at_sym("|"):
            self.allow_doc()  # `ctor := optional docComment >> "| " >> declModifiers …`
            self.advance()
            self.allow_doc()
            ct = self.expect_ident()
            saved = self.pos_col
            binders = self.decl_binders()
            ty, text = self.type_ascription()
            self.pos_col = saved
            ctors.append(A.CtorDecl(ct.line, ct.col, ct.value, binders, ty, text))
        deriving = self.deriving_clause()
        if self.tok.kind != EOF:
            raise self.error(f"unexpected {self.tok.describe()} in inductive {name}")
        return A.InductiveCmd(t.line, t.col, name, params, ctors, deriving, mods)

@dataclass(slots=True, eq=False)
class _OpenIn(A.Node):
    names: list[str]
    command: A.Node
    decl: A.OpenCmd | None = None
    """The whole ``open`` clause (``names`` are its namespaces)."""


OpenIn = _OpenIn


# ---------------------------------------------------------------------------------------------
# Splitting a file into commands


def _is_command_start(toks: list[Token], j: int) -> bool:
    t = toks[j]
    if t.col != 0 or t.kind == EOF:
        return False
    if t.kind == KEYWORD:
        if t.value in _COMMAND_KEYWORDS:
            return True
        if t.value == "deriving":
            return toks[j + 1].is_kw("instance")
        return False
    if t.kind == SYM and t.value == "@[":
        return True
    if t.kind == SYM and t.value == "#" and toks[j + 1].kind == IDENT and not toks[j + 1].space_before:
        return True
    return False


def _only_modifiers(toks: list[Token]) -> bool:
    depth = 0
    for t in toks:
        if t.is_sym("@["):
            depth += 1
        elif depth > 0:
            if t.is_sym("[", "#["):
                depth += 1
            elif t.is_sym("]"):
                depth -= 1
        elif not (t.kind == KEYWORD and t.value in _MODIFIER_KEYWORDS):
            return False
    return True


def _only_command_prefix(toks: list[Token]) -> bool:
    """Only ``open A B in`` prefixes and modifiers: they belong to the next command, whatever
    line that starts on (``open Nat in`` on its own line scopes the following ``def``)."""
    j = 0
    while j < len(toks) and toks[j].is_kw("open"):
        k = j + 1
        # the clause: identifiers, and the `scoped`, `(x y)`, `renaming x → y, …` forms
        while k < len(toks) and (toks[k].kind == IDENT or toks[k].is_kw("scoped") or toks[k].is_sym("(", ")", "→", ",")):
            k += 1
        if k == j + 1 or k >= len(toks) or not toks[k].is_kw("in"):
            return False
        j = k + 1
    return _only_modifiers(toks[j:])


def split_commands(tokens: list[Token]) -> list[list[Token]]:
    """Token lists of the top-level commands (each ending with an EOF token).

    The EOF token of a command sits where the next command starts (or at the end of the file), so
    an error at the end of a command is reported at the token Lean would complain about.
    """
    starts = [j for j in range(len(tokens) - 1) if _is_command_start(tokens, j)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    chunks: list[list[Token]] = []
    pending: list[Token] = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else len(tokens) - 1
        chunk = pending + tokens[s:e]
        if not chunk:
            continue
        if _only_command_prefix(chunk) and n + 1 < len(starts):
            pending = chunk
            continue
        pending = []
        nxt = tokens[e]
        end_tok = Token(EOF, "", nxt.text, nxt.line, nxt.col, nxt.offset, nxt.offset, True, True)
        chunks.append(chunk + [end_tok])
    return chunks
