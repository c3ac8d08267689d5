"""Logistic regression by iteratively reweighted least squares (IRLS), in pure Python.

Used for the difficulty regression of the n-Clue paper (arXiv 2607.24165, supplement sec. 9,
Table S5b "Difficulty covariates": per system, query success regressed on condition rarity,
condition count, gold-document length and judged-pool size, with standardized covariates).

Model: ``P(y_i = 1) = 1 / (1 + exp(-x_i . beta))`` with case weights ``w_i >= 0`` (a bootstrap
replicate gives each query the number of times its family was drawn). IRLS is Newton's method
on the weighted log-likelihood ``sum_i w_i (y_i eta_i - log(1 + exp(eta_i)))``:
``beta <- beta + (X' W V X)^{-1} X' W (y - p)`` with ``V = diag(p_i (1 - p_i))``; the p x p
system is solved by Gaussian elimination with partial pivoting. The gradient and information
sums are ``math.fsum`` (correctly rounded, so the same on every Python); the linear predictor
is a fixed-order sum over the p coefficients. Iteration stops when every
coefficient moves by less than ``tol * (1 + |beta_j|)``; a fit that has not converged after
``max_iter`` steps (e.g. under complete separation, where the MLE does not exist) is refused.
"""

import math
from operator import mul
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ..errors import NclueError

MAX_ITER = 50
TOLERANCE = 1e-10


@dataclass(frozen=True)
class LogisticFit:
    """The maximum-likelihood coefficients (intercept first when the design has one)."""

    coefficients: Tuple[float, ...]
    iterations: int
    log_likelihood: Optional[float]  # None when not asked for (bootstrap refits)


def _sigmoid(eta: float) -> float:
    if eta >= 0:
        return 1.0 / (1.0 + math.exp(-eta))
    e = math.exp(eta)
    return e / (1.0 + e)


def solve(matrix: List[List[float]], rhs: List[float]) -> List[float]:
    """Solve ``A x = b`` by Gaussian elimination with partial pivoting (A is copied)."""
    n = len(rhs)
    a = [list(row) + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise NclueError("logistic regression: singular information matrix "
                             "(a covariate is constant or collinear)")
        a[col], a[pivot] = a[pivot], a[col]
        lead = a[col][col]
        for r in range(col + 1, n):
            factor = a[r][col] / lead
            if factor:
                row_r, row_c = a[r], a[col]
                for c in range(col, n + 1):
                    row_r[c] -= factor * row_c[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - math.fsum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def fit_logistic(rows: Sequence[Sequence[float]], y: Sequence[int],
                 weights: Optional[Sequence[float]] = None,
                 start: Optional[Sequence[float]] = None, *,
                 max_iter: int = MAX_ITER, tol: float = TOLERANCE,
                 likelihood: bool = True) -> LogisticFit:
    """Weighted logistic MLE by IRLS (module docstring). ``rows`` are the design rows (include
    a leading 1.0 for an intercept); ``y`` is 0/1; ``start`` defaults to zeros."""
    n = len(rows)
    if n == 0 or len(y) != n:
        raise NclueError("logistic regression: rows and outcomes must be non-empty and aligned")
    p = len(rows[0])
    if any(len(r) != p for r in rows):
        raise NclueError("logistic regression: design rows differ in length")
    if any(v not in (0, 1) for v in y):
        raise NclueError("logistic regression: outcomes must be 0 or 1")
    w = [1.0] * n if weights is None else [float(v) for v in weights]
    if len(w) != n or any(v < 0 for v in w):
        raise NclueError("logistic regression: weights must be >= 0 and aligned with the rows")
    beta = [0.0] * p if start is None else [float(b) for b in start]
    keep = [i for i in range(n) if w[i]]  # zero-weight rows contribute nothing
    cols = [[float(rows[i][j]) for i in keep] for j in range(p)]
    wk = [w[i] for i in keep]
    yk = [float(y[i]) for i in keep]
    pairs = [(j, k) for j in range(p) for k in range(j, p)]
    products = {(j, k): [a * b for a, b in zip(cols[j], cols[k])] for j, k in pairs}
    for iteration in range(1, max_iter + 1):
        eta = [0.0] * len(keep)
        for j in range(p):
            bj = beta[j]
            eta = [e + bj * x for e, x in zip(eta, cols[j])]
        mu = [_sigmoid(e) for e in eta]
        v = [wi * m * (1.0 - m) for wi, m in zip(wk, mu)]
        r = [wi * (yi - m) for wi, yi, m in zip(wk, yk, mu)]
        score = [math.fsum(map(mul, r, cols[j])) for j in range(p)]
        info = [[0.0] * p for _ in range(p)]
        for j, k in pairs:
            info[j][k] = info[k][j] = math.fsum(map(mul, v, products[(j, k)]))
        step = solve(info, score)
        beta = [b + s for b, s in zip(beta, step)]
        if all(abs(s) < tol * (1.0 + abs(b)) for s, b in zip(step, beta)):
            return LogisticFit(tuple(beta), iteration,
                               _log_likelihood(rows, y, w, beta) if likelihood else None)
        if any(not math.isfinite(b) or abs(b) > 1e6 for b in beta):
            break
    raise NclueError(f"logistic regression did not converge in {max_iter} iterations "
                     "(complete or quasi-complete separation?)")


def _log_likelihood(rows, y, w, beta) -> float:
    terms = []
    for x, yi, wi in zip(rows, y, w):
        eta = math.fsum(b * v for b, v in zip(beta, x))
        # log(1 + exp(eta)) computed stably
        soft = eta + math.log1p(math.exp(-eta)) if eta > 0 else math.log1p(math.exp(eta))
        terms.append(wi * (yi * eta - soft))
    return math.fsum(terms)


def standardize(values: Sequence[float]) -> Tuple[List[float], float, float]:
    """``(z, mean, sd)`` with ``z_i = (x_i - mean) / sd`` and the population sd (divisor n)."""
    n = len(values)
    if n < 2:
        raise NclueError("standardize: needs at least two values")
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)
    if sd == 0:
        raise NclueError("standardize: the covariate is constant")
    return [(v - mean) / sd for v in values], mean, sd
