"""Check the vectorised noisy-OR loss against the stdlib reference and a hand computation.

Run in the producer venv:  python producers/spin/test_loss.py   (exit 0 = all checks pass)

1. Hand case (worked out below): one query, one steering vector s = target t, no negatives
   -> cos = 1, p = sigmoid((1 - 0.5)/0.1) = sigmoid(5) = 0.9933071490757153,
   L_pos = -log(p) = log(1 + e^-5) = 0.0067153484891..., L_neg = 0.
2. Hand case with a negative: two queries, m = 1, 2-d vectors. Query 0: s0 = (1,0), T_0 = {(1,0)};
   query 1: s1 = (0,1), T_1 = {(0,1)}. cos(s0,(0,1)) = 0 -> p = sigmoid(-5), log(1-p) =
   log(sigmoid(5)) = -log(1 + e^-5) for each query's single negative.
   L_pos = log(1 + e^-5) (both queries, same value), L_neg = log(1 + e^-5),
   L = 2 log(1 + e^-5).
3. Random tiny batches (N = 4, m = 3, H = 8, 2-3 targets per query, a shared condition text)
   compared with loss_ref (direct loops) to 1e-12.
"""

import math
import random
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loss_ref import noisy_or_loss_ref  # noqa: E402
from spin_lib import noisy_or_loss, round_robin  # noqa: E402


def run_torch(steered, targets, texts):
    ids = {}
    flat, owner, tid = [], [], []
    for n, (ts, xs) in enumerate(zip(targets, texts)):
        for t, x in zip(ts, xs):
            flat.append(t)
            owner.append(n)
            tid.append(ids.setdefault(x, len(ids)))
    out = noisy_or_loss(torch.tensor(steered, dtype=torch.float64),
                        torch.tensor(flat, dtype=torch.float64),
                        torch.tensor(owner), torch.tensor(tid))
    return tuple(float(v) for v in out)


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(b))


def main():
    failures = 0
    # 1
    got = run_torch([[[1.0, 0.0]]], [[[1.0, 0.0]]], [["a"]])
    c = math.log1p(math.exp(-5))          # closed form log(1 + e^-5) = 0.0067153484891...
    want = (c, c, 0.0)
    ok = all(close(g, w) for g, w in zip(got, want))
    print("hand case 1:", got, "want", want, "OK" if ok else "FAIL")
    failures += not ok
    # 2
    got = run_torch([[[1.0, 0.0]], [[0.0, 1.0]]], [[[1.0, 0.0]], [[0.0, 1.0]]], [["a"], ["b"]])
    want = (2 * c, c, c)
    ok = all(close(g, w) for g, w in zip(got, want))
    print("hand case 2:", got, "want", want, "OK" if ok else "FAIL")
    failures += not ok
    # 2b: the shared-text rule: query 1's target has the same text as query 0's -> no negatives
    got = run_torch([[[1.0, 0.0]], [[0.0, 1.0]]], [[[1.0, 0.0]], [[0.0, 1.0]]], [["a"], ["a"]])
    ok = close(got[2], 0.0)
    print("shared text is not a negative:", got, "OK" if ok else "FAIL")
    failures += not ok
    # 3
    rng = random.Random(7)
    worst = 0.0
    for trial in range(50):
        n, m, h = 4, 3, 8
        steered = [[[rng.gauss(0, 1) for _ in range(h)] for _ in range(m)] for _ in range(n)]
        sizes = [rng.choice([2, 3]) for _ in range(n)]
        targets = [[[rng.gauss(0, 1) for _ in range(h)] for _ in range(k)] for k in sizes]
        vocab = ["c%d" % i for i in range(6)]
        texts = [rng.sample(vocab, k) for k in sizes]
        want = noisy_or_loss_ref(steered, targets, texts)
        got = run_torch(steered, targets, texts)
        worst = max(worst, max(abs(g - w) / max(1.0, abs(w)) for g, w in zip(got, want)))
    ok = worst <= 1e-12
    print("random batches vs stdlib reference: worst relative error %.3g" % worst,
          "OK" if ok else "FAIL")
    failures += not ok
    # round robin (eq. 4), by hand: lists [a b c], [b d e], [a f] -> a b a(dup) | b(dup) d f | c e
    got = round_robin([["a", "b", "c"], ["b", "d", "e"], ["a", "f"]], 10)
    want = ["a", "b", "d", "f", "c", "e"]
    ok = got == want and round_robin([["a", "b", "c"], ["b", "d", "e"]], 3) == ["a", "b", "d"]
    print("round robin:", got, "OK" if ok else "FAIL")
    failures += not ok
    print("FAILURES:", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
