"""VeriScale: adversarially scale the test suites of Lean 4 verifiable-code-generation benchmarks."""

__version__ = "0.1.0"
