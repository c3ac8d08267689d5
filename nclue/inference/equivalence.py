"""Equivalence testing for "no effect" controls: two one-sided tests (TOST) by interval inclusion.

A control such as random steering vectors of the same norm (the Multi³IR / SPIN random-vector
control, sec. 4.2 of that paper, which gives no arXiv id) claims *no effect*. "The 95% interval covers zero" only says no effect was
detected; equivalence within a stated margin ``m`` (points) is shown when the ``1 - 2 alpha``
interval (90% for alpha = .05) lies strictly inside ``(-m, +m)`` (Schuirmann 1987; the two
one-sided tests at level alpha are then both rejected). Verdicts:

- ``1`` equivalent: the ``1 - 2 alpha`` interval lies inside ``(-m, m)``;
- ``-2`` not equivalent: the interval lies entirely outside ``[-m, m]`` (an effect larger than
  the margin is shown);
- ``0`` inconclusive: anything else (the interval straddles a margin).
"""

from ..errors import NclueError

EQUIVALENT, INCONCLUSIVE, NOT_EQUIVALENT = 1, 0, -2


def equivalence_verdict(lo: float, hi: float, margin: float) -> int:
    """TOST verdict of a ``1 - 2 alpha`` interval ``[lo, hi]`` against margin ``m`` (docstring)."""
    if not margin > 0:
        raise NclueError(f"equivalence margin must be > 0, got {margin!r}")
    if lo > hi:
        raise NclueError(f"interval bounds out of order: {lo!r} > {hi!r}")
    if -margin < lo and hi < margin:
        return EQUIVALENT
    if lo > margin or hi < -margin:
        return NOT_EQUIVALENT
    return INCONCLUSIVE
