"""``veriscale audit``: what is wrong with a benchmark's tasks and data, with evidence."""

from veriscale.stages.audit.conjuncts import split_conjuncts
from veriscale.stages.audit.models import FINDING_KINDS, AuditOptions, BenchmarkAudit, Finding, TaskAudit
from veriscale.stages.audit.run import args_from_key, audit_benchmark, audit_task, failing_conjuncts
from veriscale.stages.audit.table import format_audit

__all__ = [
    "FINDING_KINDS",
    "AuditOptions",
    "BenchmarkAudit",
    "Finding",
    "TaskAudit",
    "args_from_key",
    "audit_benchmark",
    "audit_task",
    "failing_conjuncts",
    "format_audit",
    "split_conjuncts",
]
