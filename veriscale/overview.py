"""``veriscale inspect``: a readable overview of one task or a whole benchmark (named apart from the
standard library's ``inspect``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from veriscale.benchmark import load_benchmark
from veriscale.tables import add_row, new_table, render
from veriscale.task import Task, TaskLoadError


class TaskSummary(BaseModel):
    task: str
    signature: str
    tests: int
    unexpected: int
    reject_inputs: int
    imports: str

    @classmethod
    def of(cls, task: Task) -> TaskSummary:
        params = task.signature.binders_lean()
        imports = " ".join(
            line.split(None, 1)[1] for line in task.section("import").splitlines() if line.startswith("import ")
        )
        return cls(
            task=task.id,
            signature=f"{task.signature.name} {params} : {task.signature.return_type}",
            tests=len(task.tests),
            unexpected=sum(len(t.unexpected) for t in task.tests),
            reject_inputs=len(task.reject_inputs),
            imports=imports or "-",
        )


class LoadFailure(BaseModel):
    task: str
    file: str
    line: int | None
    reason: str

    @classmethod
    def of(cls, error: TaskLoadError) -> LoadFailure:
        return cls(task=error.task, file=str(error.file), line=error.line, reason=error.reason)


class BenchmarkSummary(BaseModel):
    root: str
    tasks: list[TaskSummary]
    failed: list[LoadFailure]

    @property
    def checks(self) -> int:
        """Checks as counted by the method: tests + unexpected outputs + reject inputs."""
        return sum(t.tests + t.unexpected + t.reject_inputs for t in self.tasks)

    def to_json(self) -> dict[str, object]:
        return {
            "loaded": len(self.tasks),
            "failed": [f.model_dump() for f in self.failed],
            "tasks": [t.model_dump() for t in self.tasks],
        }

    def format_table(self) -> str:
        table = new_table("task", "tests", "unexp", "reject", "signature", right=["tests", "unexp", "reject"])
        for t in self.tasks:
            add_row(table, t.task, t.tests, t.unexpected, t.reject_inputs, t.signature)
        lines = [render(table)]
        tests = sum(t.tests for t in self.tasks)
        unexpected = sum(t.unexpected for t in self.tasks)
        rejects = sum(t.reject_inputs for t in self.tasks)
        lines.append("")
        lines.append(
            f"{len(self.tasks)} task(s) loaded from {self.root}: {tests} tests, {unexpected} unexpected outputs, "
            f"{rejects} reject inputs, {self.checks} checks"
        )
        if self.failed:
            lines.append(f"{len(self.failed)} task(s) failed to load:")
            for f in self.failed:
                where = f"{f.file}:{f.line}" if f.line is not None else f.file
                lines.append(f"  {f.task}: {where}: {f.reason}")
        return "\n".join(lines)


def inspect_benchmark(path: Path, tasks: Sequence[str] | None = None) -> BenchmarkSummary:
    """Every task of ``path`` (or those of ``tasks``) and the ones that fail to load."""
    loaded = load_benchmark(path)
    wanted = set(tasks) if tasks else None
    return BenchmarkSummary(
        root=str(path),
        tasks=[TaskSummary.of(t) for t in loaded.tasks if wanted is None or t.id in wanted],
        failed=[LoadFailure.of(e) for e in loaded.failures if wanted is None or e.task in wanted],
    )
