"""Measure ``python reproduce.py`` against its floor, in one run on this machine (issue 17).

    python bench/bench_reproduce.py [--jobs N] [--out bench/results/reproduce.json]

The *floor* is the least work any verifier of these files must do: read, decompress, JSON-parse
and sha256-hash every file ``reproduce.py`` touches (the files SHA256SUMS lists, plus the
integrity files themselves), in one process. Then ``reproduce.py`` itself runs as a child
process; its wall time and peak RSS (``resource.getrusage(RUSAGE_CHILDREN)``, which covers the
parse workers too) are recorded with the ratio wall / floor. A ``cProfile`` breakdown of
``reproduce.py --jobs 1`` by stage (parsing, hashing, scoring, resampling, rendering) is added
with ``--profile``.
"""

import argparse
import cProfile
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
    return {"seconds": time.perf_counter() - started, "files": len(names) + 1, "bytes": total}


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
    profiler.runcall(verification.reproduce, root, jobs=1, log=lambda line: None)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=None, help="passed to reproduce.py")
    parser.add_argument("--profile", action="store_true", help="add the cProfile breakdown")
    parser.add_argument("--out", help="write the result as JSON here")
    args = parser.parse_args()
    floor = floor_seconds(ROOT)
    command = [sys.executable, "reproduce.py"] + ([f"--jobs={args.jobs}"] if args.jobs else [])
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {
        "reproduce_exit": proc.returncode, "reproduce_last_line": proc.stdout.strip().splitlines()[-1],
        "reproduce_wall_seconds": wall, "reproduce_cpu_seconds": usage.ru_utime + usage.ru_stime,
        "reproduce_peak_rss_mb": usage.ru_maxrss / 1024, "floor": floor,
        "ratio_wall_to_floor": wall / floor["seconds"], "cpus": os.cpu_count(),
        "load_average": os.getloadavg(), "python": sys.version.split()[0],
    }
    if args.profile:
        result["profile_jobs_1"] = profile_breakdown(ROOT)
    text = json.dumps(result, indent=2, sort_keys=True)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
