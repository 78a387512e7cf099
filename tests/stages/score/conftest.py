"""What the scoring tests share: our clamp task, an embedded engine, and scoring one submission."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriscale.backends.base import Backend
from veriscale.stages.score import Submission
from veriscale.stages.score.models import TaskScore
from veriscale.stages.score.scoring import merge_groups, score_task
from veriscale.task import Task, load_task

SCORE_SUITE = Path(__file__).resolve().parents[2] / "fixtures" / "hostile" / "submissions" / "suite"


@pytest.fixture(scope="module")
def clamp() -> Task:
    return load_task(SCORE_SUITE / "score_clamp_all")


@pytest.fixture(scope="module")
def embedded() -> Backend:
    from veriscale.backends.embedded.backend import EmbeddedBackend

    return EmbeddedBackend(max_steps=300_000)


def score_one(task: Task, backend: Backend, **sections: str) -> TaskScore:
    """The task's score for one submission made of ``sections``, its groups merged."""
    return merge_groups(task.id, score_task(task, Submission(task=task.id, **sections), backend))
