"""Engine-neutral Lean: what every part of VeriScale needs to read and print Lean the way Lean 4 does.

* :mod:`~veriscale.lean.lexer`: the one Lean 4 lexer; the embedded engine's parser, the safety screen
  and the values reader all tokenize through it.
* :mod:`~veriscale.lean.values` and :mod:`~veriscale.lean.types`: runtime values and Lean types.
* :mod:`~veriscale.lean.printing`: ``toString``, ``repr`` and comparison as printed (one walker).
* :mod:`~veriscale.lean.codec`: stored test data to runtime values and back, Lean literals.
* :mod:`~veriscale.lean.safety`: the safety screen of untrusted Lean text, which the gate in front
  of every engine (``veriscale.backends.gate``) applies.

Nothing here imports a backend.
"""
