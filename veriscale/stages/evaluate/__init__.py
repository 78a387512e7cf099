"""Evaluate a model on a suite: CodeGen / SpecGen / ProofGen prompts, strict reply reading, scoring.

See :mod:`veriscale.stages.evaluate.pipeline` for the run directory's layout.
"""

from veriscale.stages.evaluate.pipeline import (
    DEFAULT_EVAL_ROOT,
    KIND_METRICS,
    EvalOptions,
    EvalSummary,
    TaskReply,
    default_out_dir,
    format_summary,
    model_slug,
    run_eval,
)
from veriscale.stages.evaluate.prompts import (
    DefinitionHeader,
    TaskKind,
    build_codegen_prompt,
    build_prompt,
    build_proofgen_prompt,
    build_specgen_prompt,
    definition_header,
    headers_for,
    proof_context,
    theorem_header,
)
from veriscale.stages.evaluate.replies import ReplyError, ReplySections, extract_lean_block, parse_reply

__all__ = [
    "DEFAULT_EVAL_ROOT",
    "KIND_METRICS",
    "DefinitionHeader",
    "EvalOptions",
    "EvalSummary",
    "ReplyError",
    "ReplySections",
    "TaskKind",
    "TaskReply",
    "build_codegen_prompt",
    "build_prompt",
    "build_proofgen_prompt",
    "build_specgen_prompt",
    "default_out_dir",
    "definition_header",
    "extract_lean_block",
    "format_summary",
    "headers_for",
    "model_slug",
    "parse_reply",
    "proof_context",
    "run_eval",
    "theorem_header",
]
