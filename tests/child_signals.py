"""Helpers for tests that interrupt child processes."""

import signal


def default_sigint() -> None:
    """``preexec_fn``: the child starts with SIGINT at its default, so Python turns Ctrl-C into
    KeyboardInterrupt even when the tests run in a shell's background job (``.ci/run &``), which
    starts with SIGINT ignored; an ignored SIGINT is inherited, and Python then leaves it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
