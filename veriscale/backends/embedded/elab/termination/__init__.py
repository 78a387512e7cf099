"""Termination of recursive definitions (``Lean.Elab.PreDefinition``): :mod:`.driver` decides
structural recursion and the certain rejections, :mod:`.wf` models well-founded recursion
(``GuessLex`` measures, ``decreasing_tactic``), :mod:`.mutual` the blocks of ``mutual … end``."""

from veriscale.backends.embedded.elab.termination.mutual import MutualTerminationMixin as TerminationMixin

__all__ = ["TerminationMixin"]
