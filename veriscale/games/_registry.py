"""inspect_ai's entry point for VeriScale (``inspect eval veriscale/refute``, ``veriscale/falsify``)."""

from veriscale.games.inspect_tasks import falsify, refute

__all__ = ["falsify", "refute"]
