"""Loading a benchmark from wherever it is kept: a directory in Verina's layout, or a Hugging Face
dataset in Verina's schema (saved to disk, or parquet)."""

from __future__ import annotations

from pathlib import Path

from veriscale.hf_dataset import dataset_layout, load_dataset_benchmark
from veriscale.task import BenchmarkLoad, load_benchmark_dir

__all__ = ["BenchmarkLoad", "load_benchmark"]


def load_benchmark(path: str | Path) -> BenchmarkLoad:
    """Every task of the benchmark at ``path``, sorted by name; bad tasks are reported in
    ``failures``. A dataset that is not in Verina's schema raises
    :class:`veriscale.hf_dataset.DatasetFormatError`."""
    root = Path(path)
    if dataset_layout(root) is not None:
        return load_dataset_benchmark(root)
    return load_benchmark_dir(root)
