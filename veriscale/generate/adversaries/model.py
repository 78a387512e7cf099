"""The adversary record shared by the LLM-free generators and the LLM round."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

AdversarySource = Literal["template", "mutant", "llm"]


class Adversary(BaseModel):
    """A wrong-but-plausible implementation of a task, as replacement section bodies.

    It is run by evaluating the ``code`` check on ``task.with_sections(**adv.sections)``.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    """Stable across runs: ``template:<kind>[:<param>]``, ``mutant:<section>:L<line>C<col>:<change>``
    (line 1-based and column 0-based within the section body, as Lean reports positions), or
    ``llm:<model>:<spec#>:<k>``."""
    source: AdversarySource
    description: str
    sections: dict[str, str]
    """Replacement bodies, normally ``{"code": ...}``; mutants of helpers replace ``code_aux``."""
