"""Memory of one ``python reproduce.py`` over time, by stage (issue 23: what a larger release needs).

    python bench/memory_trace.py [--interval 0.25] [--out bench/results/memory_trace.json]

Runs reproduce.py as a child process and reads its resident set size (``VmRSS`` of
``/proc/<pid>/status``; Linux only) every ``--interval`` seconds, while reading its progress
lines (standard error) as they come: each stage (``release v1: parsing 213 run files``, ``...:
building 54 tables``, the next release) gets the RSS when it began, the largest RSS seen while it
ran, and its seconds. The JSON keeps the stages, the peak and the run's summary line.
"""

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rss_mb(pid: int) -> float:
    """The process's resident set size in MB, or 0 once it has gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--interval", type=float, default=0.25)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "reproduce.py"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    stages = [{"stage": "start-up", "at_s": 0.0, "rss_at_start_mb": 0.0, "max_rss_mb": 0.0}]
    lock = threading.Lock()

    def read_progress():
        for line in proc.stderr:
            now, rss = time.monotonic() - started, rss_mb(proc.pid)
            with lock:
                stages.append({"stage": line.strip(), "at_s": round(now, 2),
                               "rss_at_start_mb": round(rss, 1), "max_rss_mb": round(rss, 1)})

    reader = threading.Thread(target=read_progress, daemon=True)
    reader.start()
    peak = 0.0
    while proc.poll() is None:
        rss = rss_mb(proc.pid)
        peak = max(peak, rss)
        with lock:
            stages[-1]["max_rss_mb"] = round(max(stages[-1]["max_rss_mb"], rss), 1)
        time.sleep(args.interval)
    out = proc.stdout.read()
    reader.join(timeout=5)
    total = time.monotonic() - started
    for stage, following in zip(stages, stages[1:] + [{"at_s": round(total, 2)}]):
        stage["seconds"] = round(following["at_s"] - stage["at_s"], 2)
    lines = out.strip().splitlines()
    result = {"command": "python reproduce.py", "interval_s": args.interval, "exit": proc.returncode,
              "summary": lines[-1] if lines else "", "peak_rss_mb": round(peak, 1),
              "wall_s": round(total, 2), "stages": stages}
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
