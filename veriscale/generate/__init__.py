"""Candidate generation: inputs (LLM-free synthesis and mutation), specs, adversaries."""

from veriscale.generate.inputs import (
    Mutant,
    MutationStep,
    dedupe,
    is_valid_row,
    mutate,
    mutate_traced,
    synthesize,
    unsupported_parameters,
)

__all__ = [
    "Mutant",
    "MutationStep",
    "dedupe",
    "is_valid_row",
    "mutate",
    "mutate_traced",
    "synthesize",
    "unsupported_parameters",
]
