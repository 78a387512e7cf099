#!/usr/bin/env python3
"""The falsification games on an expanded suite: REFUTE items and baselines, FalsifyBench games
and scripted testers, with the figures printed.

    veriscale expand ../shared/data/verina --out /tmp/verina-plus     # first (takes a while)
    python benchmarks/games_verina.py /tmp/verina-plus --out /tmp/verina-games
    python benchmarks/games_verina.py /tmp/verina-plus --out /tmp/verina-games --budgets 10,100 --skip-falsify
    python benchmarks/games_verina.py /tmp/verina-plus --out /tmp/verina-games --build /tmp/refute-build

Prints: items, tasks, dropped (by reason), items by difficulty bucket (and by each route's bucket
alone) and adversary kind; the success rate of the random and the mutation player at each budget,
per bucket; FalsifyBench games,
judging inputs, the lowest decided share, and the positive-only vs negative tester's success,
turns, bias and conclusive falsifications. Reruns resume (the build's finished tasks are not built
again, finished items are not played again). ``--build`` plays an existing ``refute build`` output
instead of building into ``OUT/refute-build``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
if str(PROJECT_ROOT) not in sys.path:
    sys.path.insert(0, str(PROJECT_ROOT))

from veriscale.backends.select import make_backend  # noqa: E402
from veriscale.games.falsify.baselines import AGENTS  # noqa: E402
from veriscale.games.falsify.build import build_games  # noqa: E402
from veriscale.games.falsify.game import FalsifySettings  # noqa: E402
from veriscale.games.falsify.runner import run_games  # noqa: E402
from veriscale.games.refute.build import SUMMARY_NAME, build_items, load_items  # noqa: E402
from veriscale.games.refute.difficulty import BUCKETS, expected_success  # noqa: E402
from veriscale.games.refute.game import RefuteSettings  # noqa: E402
from veriscale.games.refute.runner import baseline_player, run_items  # noqa: E402
from veriscale.parallel import ExecutorConfig, make_executor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("suite", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--budgets", default="10,100,1000")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--skip-falsify", action="store_true")
    parser.add_argument("--skip-refute", action="store_true")
    parser.add_argument("--build", type=Path, help="an existing `veriscale refute build` output to play")
    parser.add_argument("--workers", type=int, default=None, help="build workers (default: one per core)")
    args = parser.parse_args()
    backend = make_backend("embedded")
    if not args.skip_refute:
        start = time.perf_counter()
        if args.build is not None:
            build = args.build
            summary = json.loads((build / SUMMARY_NAME).read_text(encoding="utf-8"))
        else:
            build = args.out / "refute-build"
            executor = make_executor(ExecutorConfig(workers=args.workers))
            summary = build_items(args.suite, build, "embedded", executor=executor).to_json()
        print(
            f"refute build: {summary['items']} items over {summary['tasks_with_items']} of {summary['tasks_seen']} tasks "
            f"in {time.perf_counter() - start:.0f} s"
        )
        print(
            f"  dropped {summary['dropped_total']}: {summary['dropped']}; adversaries {summary['adversaries']}, "
            f"caught by the original tests {summary['killed_by_original_tests']}, "
            f"differing on an original test {summary['fails_original_tests']}"
        )
        print(f"  by bucket: {summary['by_bucket']}")
        print(f"    suite route alone: {summary['by_suite_bucket']}; blind route alone: {summary['by_blind_bucket']}")
        print(f"    tasks without a blind pool (types the sampler cannot draw): {summary['tasks_without_pool']}")
        print(f"  by kind: {summary['by_kind']}")
        items = load_items(build)
        for budget in (int(b) for b in args.budgets.split(",")):
            # what the pool's rates predict for a random player at this budget (mean over items)
            expected = ", ".join(
                f"{bucket} {sum(expected_success(i.pool_rate, budget) for i in group) / len(group):.1%}"
                for bucket in BUCKETS
                if (group := [i for i in items if i.bucket == bucket])
            )
            print(f"  random   @ {budget:5} expected from the pool rates: {expected}")
            for name in ("random", "mutation"):
                start = time.perf_counter()
                metrics = run_items(
                    build,
                    args.out / f"refute-{name}-{budget}",
                    backend,
                    lambda judge, n=name, b=budget: baseline_player(
                        n, judge, args.suite, seed=args.seed, budget=b
                    ),
                    RefuteSettings(attempts=budget),
                )
                buckets = ", ".join(
                    f"{k} {v['solved']}/{v['items']}" for k, v in metrics["by_bucket"].items()
                )
                print(
                    f"  {name:8} @ {budget:5}: solved {metrics['solved']}/{metrics['items']} "
                    f"({100 * metrics['success_rate']:.1f}%); {buckets}  [{time.perf_counter() - start:.0f} s]"
                )
    if not args.skip_falsify:
        start = time.perf_counter()
        games_dir = args.out / "falsify-build"
        summary = build_games(args.suite, games_dir, backend, seed=args.seed).to_json()
        print(
            f"falsify build: {summary['games']} games of {summary['tasks']} tasks ({summary['trivial']} trivial); "
            f"{summary['judging_inputs']} judging inputs; lowest decided share {summary['min_decided_share']}; "
            f"below 95%: {summary['games_below_95']}; no positive example: {summary['no_positive_example']}; "
            f"errors {len(summary['errors'])}  [{time.perf_counter() - start:.0f} s]"
        )
        settings = FalsifySettings(max_turns=20, max_guesses=1)
        for name, agent in AGENTS.items():
            start = time.perf_counter()
            m = run_games(games_dir, args.out / f"falsify-{name}", backend, agent, settings)
            print(
                f"  {name:8}: solved {m['solved']}/{m['games']} ({100 * m['success_rate']:.1f}%), "
                f"turns {m['mean_turns']}, bias {m['positive_bias']}, "
                f"conclusive falsifications {m['conclusive_falsifications']}  [{time.perf_counter() - start:.0f} s]"
            )
    print(json.dumps({"out": str(args.out)}))


if __name__ == "__main__":
    main()
