"""Family-bootstrap distribution of a difference between two query groups (not paired).

Used for descriptive slice contrasts of the n-Clue paper (arXiv 2607.24165, Table 6 / S1j and
Table 8 prose: a system's score on 3-condition minus 2-condition queries). Each replicate draws
exact-gold-set families with replacement (the draws of :class:`Resampler`, shared with every
other analysis of the same query set) and computes, over the queries of the drawn families,
``mean(group B) - mean(group A)``; a replicate in which a group is empty is refused.
"""

import math
from typing import Hashable, List, Mapping, Sequence

from ..errors import NclueError
from .resampling import Resampler


def group_difference_distribution(resampler: Resampler, values: Mapping[Hashable, float],
                                  group_a: Sequence[Hashable], group_b: Sequence[Hashable],
                                  replicates: int) -> List[float]:
    """Sorted replicate values of ``mean(values over B) - mean(values over A)``."""
    in_a, in_b = set(group_a), set(group_b)
    if not in_a or not in_b or in_a & in_b:
        raise NclueError("group difference: the groups must be non-empty and disjoint")
    missing = [q for q in in_a | in_b if q not in values]
    if missing:
        raise NclueError(f"group difference: {len(missing)} group queries have no value")
    values_a, values_b = [], []
    for members in resampler.members:
        values_a.append([values[q] for q in members if q in in_a])
        values_b.append([values[q] for q in members if q in in_b])
    integral = all(isinstance(v, int) for fam in values_a + values_b for v in fam)
    add = sum if integral else math.fsum  # int sums are exact; fsum is correctly rounded
    sa = [add(f) for f in values_a]
    sb = [add(f) for f in values_b]
    na = [len(f) for f in values_a]
    nb = [len(f) for f in values_b]
    stats = []
    for number, idx in enumerate(resampler.bootstrap_draws(replicates), start=1):
        count_a = sum(map(na.__getitem__, idx))
        count_b = sum(map(nb.__getitem__, idx))
        if not count_a or not count_b:
            raise NclueError(f"group difference: replicate {number} drew no query of a group")
        stats.append(add(map(sb.__getitem__, idx)) / count_b
                     - add(map(sa.__getitem__, idx)) / count_a)
    stats.sort()
    return stats
