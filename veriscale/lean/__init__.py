"""Engine-neutral Lean: what every part of VeriScale needs to read Lean text the way Lean 4 does.

:mod:`veriscale.lean.lexer` is the one Lean 4 lexer; the embedded engine's parser, the safety screen
and the values reader all tokenize through it. Nothing here imports a backend.
"""
