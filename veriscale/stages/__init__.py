"""The pipeline's stages, one package each: expand, reduce, validate, score, evaluate, power,
report, audit. Their public entry points are re-exported flat by :mod:`veriscale.api` (and
``import veriscale``); the modules here are the implementation."""
