"""inspect_ai's entry point for VeriScale: every task a user names as ``veriscale/<name>``.

``inspect eval veriscale/refute -T build=DIR``, ``veriscale/falsify -T build=DIR``,
``veriscale/codegen -T suite=DIR``, ``veriscale/specgen -T suite=DIR`` and ``veriscale/proofgen -T
suite=DIR``. inspect_ai imports
this module when it meets the ``veriscale/`` prefix (the ``inspect_ai`` entry point group in
``pyproject.toml``); importing it registers the tasks.
"""

from veriscale.games.inspect_tasks import falsify, refute
from veriscale.stages.evaluate.inspect_tasks import codegen, proofgen, specgen

__all__ = ["codegen", "falsify", "proofgen", "refute", "specgen"]
