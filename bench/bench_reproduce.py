"""Measure ``python reproduce.py`` against its floor, in one run on this machine (issues 17, 23).

    python bench/bench_reproduce.py [--baseline DIR] [--rounds N] [--out bench/results/reproduce.json]

The *floor* is the least work any verifier of these files must do: read, decompress, JSON-parse
and sha256-hash every file ``reproduce.py`` touches (the files SHA256SUMS lists, plus the
integrity files themselves), in one process. ``reproduce.py`` itself runs as a child process
(one process: it has no workers); its wall time, CPU time (user + system) and peak RSS
(``resource.getrusage(RUSAGE_CHILDREN)`` of a wrapper process that runs only it) are recorded
with the ratios to the floor, each round measuring the floor right before its reproduce.py run
(the machine is shared: paired ratios, medians over the rounds). ``--baseline DIR`` adds another
checkout (e.g. the main branch) run in the same rounds, alternating with this one, so that the
two are compared paired. A ``cProfile`` breakdown by stage is added with ``--profile``.
"""

import argparse
import cProfile
import statistics
import gzip
import hashlib
import io
import json
import os
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def floor_seconds(root: Path) -> dict:
    """Read, decompress, parse and hash every listed file once (see the module docstring)."""
    started = time.perf_counter()
    cpu = time.process_time()
    names = [line[66:] for line in (root / "SHA256SUMS").read_text().splitlines() if line]
    total = 0
    for name in names + ["SHA256SUMS"]:
        data = (root / name).read_bytes()
        total += len(data)
        hashlib.sha256(data).hexdigest()
        if name.endswith(".gz"):
            data = gzip.decompress(data)
        if name.endswith((".jsonl", ".jsonl.gz")):
            for line in io.BytesIO(data):
                if line.strip():
                    json.loads(line)
        elif name.endswith(".json"):
            json.loads(data)
    return {"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu,
            "files": len(names) + 1, "bytes": total}


CHILD = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[2:], cwd=sys.argv[1], capture_output=True, text=True)
wall = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
lines = done.stdout.strip().splitlines()
print(repr((done.returncode, lines[-1] if lines else done.stderr[-300:], wall,
            usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)))
"""


def run_reproduce(root: Path) -> dict:
    """One ``python reproduce.py`` of ``root`` in a wrapper process (its own peak RSS only)."""
    import ast
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), sys.executable, "reproduce.py"],
                         capture_output=True, text=True, check=True).stdout
    code, last, wall, cpu, rss = ast.literal_eval(out.strip())
    return {"exit": code, "last_line": last, "wall_seconds": wall, "cpu_seconds": cpu,
            "peak_rss_mb": rss}


STAGES = {  # cProfile's cumulative time of these functions, by stage
    "parsing runs and release files": ("runs.py:load_run", "release.py:load_release"),
    "hashing (SHA256SUMS, run index)": ("integrity.py:verify_sha256sums", "run_index.py:load"),
    "scoring (per-query outcomes and coverage)": ("metrics.py:outcomes", "coverage.py:per_query_coverage"),
    "resampling and sensitivity": ("contrasts.py:build", "sensitivity.py:build", "findings.py:build",
                                   "paired_tests.py:build", "figures.py:delta_plane_figure"),
    "validity analyses (tie rules, regression, matching, observations, ranked matrix)": (
        "tie_sensitivity.py:build", "difficulty_regression.py:build", "observations.py:build",
        "ranked_matrix.py:build", "length_matched.py:build", "density_matched.py:build",
        "masking.py:build", "source_shift.py:build", "source_breakdown.py:build"),
    "Multi3IR section": ("perspective_coverage.py:build", "perspective_contrasts.py:build",
                         "layer_grid.py:build", "adaptation.py:build", "knowledge_sources.py:build",
                         "dispersion_quartiles.py:build", "perspective_hits.py:build"),
    "re-deriving files (slices, families, stats, Croissant)": ("verification.py:check_derived",),
    "rendering and comparing files": ("verification.py:regenerated_files", "verification.py:compare_files"),
}


def profile_breakdown(root: Path) -> dict:
    sys.path.insert(0, str(root))
    from nclue import verification
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.runcall(verification.reproduce, root, log=lambda line: None)
    total = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    out = {"total_seconds_profiled": total}
    for stage, names in STAGES.items():
        seconds = 0.0
        for (filename, _, function), (_, _, _, cumulative, _) in stats.stats.items():
            key = f"{os.path.basename(filename)}:{function}"
            if key in names:
                seconds += cumulative
        out[stage] = seconds
    return out


def median(values):
    return statistics.median(values) if values else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="another checkout run in the same rounds (paired)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (default 1)")
    parser.add_argument("--profile", action="store_true", help="add the cProfile breakdown")
    parser.add_argument("--out", help="write the result as JSON here")
    args = parser.parse_args()
    rounds = []
    for number in range(args.rounds):
        entry = {}
        order = [("this", ROOT)] + ([("baseline", Path(args.baseline).resolve())] if args.baseline else [])
        if number % 2:
            order.reverse()  # alternate which one goes first
        for name, root in order:
            floor = floor_seconds(root)
            run = run_reproduce(root)
            run.update(floor=floor, wall_to_floor=run["wall_seconds"] / floor["seconds"],
                       cpu_to_floor_cpu=run["cpu_seconds"] / floor["cpu_seconds"],
                       load_average=os.getloadavg()[0])
            entry[name] = run
        if args.baseline:
            entry["paired"] = {key: entry["this"][key] / entry["baseline"][key]
                               for key in ("wall_seconds", "cpu_seconds", "peak_rss_mb")}
        rounds.append(entry)
    summary = {name: {key: median([r[name][key] for r in rounds])
                      for key in ("wall_seconds", "cpu_seconds", "peak_rss_mb", "wall_to_floor",
                                  "cpu_to_floor_cpu")}
               for name in rounds[0] if name != "paired"}
    for name in summary:
        summary[name]["floor_seconds"] = median([r[name]["floor"]["seconds"] for r in rounds])
        summary[name]["floor_cpu_seconds"] = median([r[name]["floor"]["cpu_seconds"] for r in rounds])
    if args.baseline:
        summary["paired_this_over_baseline"] = {
            key: median([r["paired"][key] for r in rounds]) for key in ("wall_seconds", "cpu_seconds", "peak_rss_mb")}
    result = {"rounds": rounds, "medians": summary, "cpus": os.cpu_count(),
              "python": sys.version.split()[0]}
    if args.profile:
        result["profile"] = profile_breakdown(ROOT)
    text = json.dumps(result, indent=2, sort_keys=True)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0 if all(r["this"]["exit"] == 0 for r in rounds) else 1


if __name__ == "__main__":
    sys.exit(main())
