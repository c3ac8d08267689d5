"""Standard-library reference of SPIN's noisy-OR objective (Multi3IR paper, sec. 4.2, Algorithm 1).

Written directly from Algorithm 1, lines 7-10, with plain loops and ``math`` so that the
vectorised torch version in ``spin_lib.noisy_or_loss`` can be checked against it
(``test_loss.py``). Not used for training.

    p_s(t)  = sigmoid((cos(s, t) - b) / tau)
    L_pos   = -(1/N) sum_n (1/|T_n|) sum_{t in T_n} log(1 - prod_{s in S_n} (1 - p_s(t)))
    L_neg   = -(1/N) sum_n (1/|T_{!=n}|) sum_{t in T_{!=n}} sum_{s in S_n} log(1 - p_s(t))
    L       = L_pos + L_neg

``T_{!=n}`` (in-batch negatives) are the targets of the other queries in the batch. Choice made
here (the paper is silent): a target of another query whose *text* equals one of query n's own
condition texts is not a negative for n (the same condition may occur in two queries of a
batch; treating it as negative would push s away from one of its own targets).
"""

import math
from typing import List, Sequence


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb)


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def noisy_or_loss_ref(steered: List[List[List[float]]], targets: List[List[List[float]]],
                      target_texts: List[List[str]], tau: float = 0.1, b: float = 0.5):
    """Return (L, L_pos, L_neg) for one batch.

    steered[n] = the m steered embeddings S_n of query n; targets[n] = T_n (one vector per
    condition); target_texts[n] = the condition strings of T_n (for the negative rule above).
    """
    n_queries = len(steered)
    pos_total = 0.0
    neg_total = 0.0
    for n in range(n_queries):
        own = set(target_texts[n])
        pos = 0.0
        for t in targets[n]:
            miss = 1.0
            for s in steered[n]:
                miss *= 1.0 - sigmoid((cosine(s, t) - b) / tau)
            pos += math.log(1.0 - miss)
        pos_total += pos / len(targets[n])
        negs = [t for j in range(n_queries) if j != n
                for t, text in zip(targets[j], target_texts[j]) if text not in own]
        if negs:
            neg = 0.0
            for t in negs:
                for s in steered[n]:
                    neg += math.log(1.0 - sigmoid((cosine(s, t) - b) / tau))
            neg_total += neg / len(negs)
    l_pos = -pos_total / n_queries
    l_neg = -neg_total / n_queries
    return l_pos + l_neg, l_pos, l_neg
