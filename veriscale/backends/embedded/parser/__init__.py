"""Parser for the Lean 4 subset of task files and model-generated code.

A Pratt parser over the tokens of :mod:`veriscale.lean.lexer`, following Lean's grammar where it matters:

* precedences and associativity of the notations in Lean's ``Init`` (``+`` is ``infixl:65``,
  ``^`` ``infixr:80``, ``¬``/``!`` take an argument at 40, prefix ``-`` is ``prefix:75``, ``∧`` is
  ``infixr:35``, ``|>`` and ``<|`` are at ``min``, ...);
* application arguments need whitespace before them and must start in a column greater than the
  saved *position* (Lean's ``checkColGt``); ``let``/``have``, ``do`` elements and ``match``
  alternatives save the position, brackets clear it. That is what ends ``let x := f a`` at a
  following line that starts in the column of ``let``;
* ``match`` alternatives continue while ``|`` is at or right of the first one's column;
* ``fun`` and ``do`` can be the last argument of an application (``xs.map fun x => ...``,
  ``Id.run do ...``), and ``do`` is forbidden in the collection of ``for ... in ... do``;
* tactic blocks (``by ...``, ``decreasing_by ...``) and theorem bodies are skipped by layout, not
  parsed.

Some notations are expanded here, as Lean's macros do, into nodes the evaluator already knows:
nested actions ``(← e)`` become ``let x ← e`` before their do element (``expandLiftMethod``),
``let pat := e | alt`` in a do block becomes a ``match`` over the rest of the block, slices
``xs[a:b]`` become ``Array.toSubarray xs a b``, and ``a ^^ b`` becomes ``Bool.xor a b``.

A file is split into commands at column-0 command keywords; each command parses on its own, so a
syntax error is recorded on that command (:class:`~veriscale.backends.embedded.ast.CommandError`) and the rest still parse.

The parser is split by construct into mixins over :class:`~.core.ParserCore` (token cursor,
layout state and helpers): :mod:`.terms`, :mod:`.binders`, :mod:`.compound`, :mod:`.do_notation`
and :mod:`.commands`, composed in :class:`~.parse.Parser`.
"""

from veriscale.backends.embedded.parser.commands import OpenIn, split_commands
from veriscale.backends.embedded.parser.core import (
    ARG_PREC,
    LEAD_PREC,
    MAX_PREC,
    MIN_PREC,
    ParsedFile,
    ParserCore,
)
from veriscale.backends.embedded.parser.parse import Parser, parse_file, parse_term

__all__ = [
    "ARG_PREC",
    "LEAD_PREC",
    "MAX_PREC",
    "MIN_PREC",
    "OpenIn",
    "ParsedFile",
    "Parser",
    "ParserCore",
    "parse_file",
    "parse_term",
    "split_commands",
]
