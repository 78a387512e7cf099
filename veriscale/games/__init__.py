"""Falsification games on Lean tasks, judged by VeriScale's engine.

* :mod:`.refute` -- REFUTE: find an input that exposes a subtly wrong implementation
  (items built from the kill matrix of an expanded suite);
* :mod:`.falsify` -- FalsifyBench: discover a task's hidden precondition by proposing inputs and
  reading yes/no answers (a Wason 2-4-6 game over Lean predicates);
* :mod:`.inspect_tasks` -- both games as inspect_ai tasks (datasets, tools, engine-backed scorers).

Everything that decides an outcome goes through a :class:`veriscale.backends.Backend`; an answer
the engine cannot establish (``unknown``, a timeout) never counts as a success.
"""
