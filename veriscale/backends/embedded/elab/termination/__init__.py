"""Termination of recursive definitions (``Lean.Elab.PreDefinition``): :mod:`.driver` decides
structural recursion and the certain rejections, :mod:`.wf` models well-founded recursion
(``GuessLex`` measures, ``decreasing_tactic``)."""

from veriscale.backends.embedded.elab.termination.driver import TerminationMixin

__all__ = ["TerminationMixin"]
