"""Suite reduction (``veriscale reduce``): keep few tests that still kill every adversary, and few
reject inputs that still cover the boundary cases.

* :mod:`veriscale.stages.reduce.cover` -- greedy (published) and exact minimum set cover, budget fill;
* :mod:`veriscale.stages.reduce.rejects` -- the published reject-input reduction (and a typed variant);
* :mod:`veriscale.stages.reduce.recipe` -- TOML recipes (``suites/lite.toml``, ``suites/plus.toml``);
* :mod:`veriscale.stages.reduce.suite` -- applying a recipe to a suite directory, with reports.
"""

from veriscale.stages.reduce.cover import (
    ExactCoverUnavailable,
    TestSelection,
    exact_cover,
    exact_solver_name,
    fill_by_kills,
    greedy_cover,
    select_tests,
)
from veriscale.stages.reduce.recipe import Recipe, RecipeError, RejectRule, TestRule, load_recipe
from veriscale.stages.reduce.rejects import RejectReduction, reduce_reject_inputs
from veriscale.stages.reduce.suite import (
    KillMatrix,
    ReduceReport,
    ReduceTotals,
    TaskReduction,
    reduce_suite,
    reduce_task,
)

__all__ = [
    "ExactCoverUnavailable",
    "KillMatrix",
    "Recipe",
    "RecipeError",
    "ReduceReport",
    "ReduceTotals",
    "RejectReduction",
    "RejectRule",
    "TaskReduction",
    "TestRule",
    "TestSelection",
    "exact_cover",
    "exact_solver_name",
    "fill_by_kills",
    "greedy_cover",
    "load_recipe",
    "reduce_reject_inputs",
    "reduce_suite",
    "reduce_task",
    "select_tests",
]
