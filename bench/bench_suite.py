"""CPU time of the test suite: the whole suite as `.ci/run` runs it, and the fast part alone.

    python bench/bench_suite.py --rounds 2 --out bench/results/suite.json

Each round runs, one after the other, in fresh processes from the repository root:

- the whole suite: ``CI=true python -m unittest discover -s tests`` (the README's test command
  under `.ci/run`'s ``CI=true``, the browser tests included);
- the fast part: ``NCLUE_TESTS=fast python -m unittest discover -s tests``.

CPU time is user + system of the process and every descendant it waited for (the growth of
``resource.RUSAGE_CHILDREN`` around the run: the child processes a test starts, ``reproduce.py`` runs, ``python -m
nclue`` commands, the browser, are counted), beside its wall time. The JSON keeps every sample,
the median of each figure, the machine's load average before each round, and the tests' summary
line; a round whose suite fails makes the script exit 1.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

JOBS = {
    "whole": {"CI": "true"},
    "fast": {"NCLUE_TESTS": "fast"},
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    samples = {name: [] for name in JOBS}
    failed = False
    for round_index in range(args.rounds):
        for name, extra in JOBS.items():
            load = os.getloadavg()[0]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            env = {k: v for k, v in os.environ.items() if k not in ("NCLUE_TESTS", "CI")}
            env.update(extra)
            started = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"],
                                  cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wall = time.monotonic() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
            samples[name].append({"cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
                                  "load_before": round(load, 2), "status": proc.returncode,
                                  "summary": [line for line in tail if line.strip()]})
            print(f"round {round_index + 1} {name}: {cpu:.1f} s CPU, {wall:.1f} s wall, "
                  f"exit {proc.returncode} ({tail[-1] if tail else ''})", file=sys.stderr)
            failed = failed or proc.returncode != 0
    result = {"command": "python -m unittest discover -s tests",
              "jobs": {name: {"env": JOBS[name], "samples": rows,
                              "median_cpu_s": round(statistics.median(r["cpu_s"] for r in rows), 2),
                              "median_wall_s": round(statistics.median(r["wall_s"] for r in rows), 2)}
                       for name, rows in samples.items()},
              "python": sys.version.split()[0], "cpus": os.cpu_count()}
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
