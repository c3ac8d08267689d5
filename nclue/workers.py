"""Worker processes that leave Ctrl-C to their parent and die with it.

:func:`worker_pool` is the one place where nclue makes a process pool (``ReleaseContext.preload``
parses run files in it). Its workers

- ignore SIGINT: a Ctrl-C in a terminal reaches the whole process group, and only the parent
  should turn it into one line and exit status 130 (a worker's KeyboardInterrupt traceback, or a
  worker dying mid-task, could otherwise leave the pool hanging);
- restore the default SIGTERM action, so the parent can stop them at once;
- die with their parent, even after a SIGKILL of it: on Linux through
  ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (via ctypes), everywhere through a watchdog thread that
  checks twice a second whether the parent still exists (its parent pid changed, or
  ``kill(parent, 0)`` fails), then calls ``os._exit``. Without either, a worker blocked on its
  task queue would wait forever for a parent that is gone.

The pool itself stops its workers at once (SIGTERM, no waiting for running tasks) when the
``with`` block it guards ends with an exception, KeyboardInterrupt included, so an interrupted
run stops within a second instead of finishing the files being parsed.
"""

import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Optional

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_INTERVAL = 0.5  # seconds between two checks of the parent


def _set_parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (ImportError, OSError, AttributeError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _watch(parent_pid: int, first_ppid: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if os.getppid() != first_ppid or not _alive(parent_pid):
            os._exit(1)  # the parent is gone: nobody will read our results


def watch_parent(parent_pid: int, interval: float = WATCH_INTERVAL) -> None:
    """Worker initializer: ignore SIGINT, default SIGTERM, and exit when ``parent_pid`` dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    first_ppid = os.getppid()
    if os.name == "posix":
        _set_parent_death_signal()
        if not _alive(parent_pid):  # died before the death signal was armed
            os._exit(1)
        thread = threading.Thread(target=_watch, args=(parent_pid, first_ppid, interval),
                                  name="nclue-parent-watchdog", daemon=True)
        thread.start()


class WorkerPool(ProcessPoolExecutor):
    """A ProcessPoolExecutor whose workers run :func:`watch_parent` and which, when its
    ``with`` block raises, terminates them instead of waiting for their tasks."""

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Optional[bool]:
        if exc_type is None:
            return super().__exit__(exc_type, exc, tb)
        self.terminate()
        return False

    def terminate(self, timeout: float = 1.0) -> None:
        """Stop now: cancel pending tasks, SIGTERM every worker, wait up to ``timeout`` s each."""
        processes = list((getattr(self, "_processes", None) or {}).values())
        self.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            try:
                process.terminate()
            except (OSError, AttributeError, ValueError):
                pass
        deadline = time.monotonic() + timeout
        for process in processes:
            try:
                process.join(max(0.0, deadline - time.monotonic()))
                if process.is_alive():
                    process.kill()
                    process.join(0.5)
            except (OSError, AttributeError, ValueError, AssertionError):
                pass


def worker_pool(jobs: int) -> WorkerPool:
    """A pool of ``jobs`` worker processes that die with this process (see module docstring).

    Raises what ProcessPoolExecutor raises where no pool can be made (OSError,
    NotImplementedError, ImportError); callers fall back to working in this process.
    """
    return WorkerPool(max_workers=jobs, initializer=watch_parent, initargs=(os.getpid(),))
