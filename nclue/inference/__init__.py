"""Uncertainty, significance and sensitivity for paired retrieval comparisons.

Two modules: :mod:`.resampling` (bootstrap, sign-flip and permutation tests, max-|T| and Holm)
and :mod:`.sensitivity` (dependence, common support, promotion bounds). This package exposes
both.

Implements the inference of the n-Clue paper (arXiv 2607.24165):
sec. 3.4 and Table 5 (family-clustered bootstrap intervals, family sign-flip randomization,
blockwise max-|T| selection adjustment followed by Holm across blocks), supplement sec. 3-4
(Tables S1e-S1i: common-support ordering, miss/subset-first/gold-first decomposition,
crossed query/document weighting, leave-one-document ranges, removal of the highest-degree
documents, connected components of the membership graph, adversarial promotion bounds) and
sec. 8 (Table S4: query-paired permutation tests).

Everything works on *per-query outcome vectors*: a mapping ``qid -> number`` (or an aligned
sequence, whose positions then act as query ids), e.g. the 0/1 n-Clue Score@10 of each query
from :func:`nclue.metrics.per_query`. Rankings are never re-scored inside a resampling loop:
each analysis first reduces the vectors to per-family (or per-query) sums, and the replicates
only add precomputed numbers.

Randomness and reuse (recorded so that every number can be regenerated):

* Defaults are the paper's (supplement Table "Frozen setting"): seed 11, 1,000 bootstrap
  replicates, 10,000 randomization draws.
* Families are ordered by their id (sorted, :func:`_sort_key`); family ``i`` is that position.
* Bootstrap replicate ``r`` is ``random.Random(seed).choices(range(F), k=F)`` called ``r + 1``
  times: the family indices drawn with replacement. The draws depend only on
  ``(seed, F, replicates)``, so every contrast over the same family map sees the *same* resampled
  family multisets (common random numbers); a contrast analysed alone gives exactly the numbers
  it gets inside a batch (:class:`Resampler`).
* Randomization draw ``b`` is the ``b``-th ``random.Random(seed).getrandbits(F)``; family ``i`` is
  sign-flipped iff bit ``i`` is set. The same sign vectors are reused for every contrast over the
  same family map; this is *required* for max-|T| (the joint null distribution of a block) and
  harmless elsewhere.
* Two-sided randomization p-values use the +1 correction (the observed assignment counts as one
  draw): ``p = (1 + #{b : |T*_b| >= |T_obs|}) / (1 + B)``, so ``p >= 1/(1+B)`` and ``p`` is a valid
  (slightly conservative) Monte Carlo p-value. With ``exact=True`` all ``2**F`` sign vectors are
  enumerated instead and ``p = #{s : |T(s)| >= |T_obs|} / 2**F`` (no correction needed; refused
  above :data:`MAX_EXACT_UNITS` units).
* Ties: when every outcome is an integer (0/1 scores) all sums are Python ints and ``>=`` is exact.
  Otherwise floats are compared with a relative tolerance of 1e-9 of the statistic's scale so that
  rounding cannot break an exact tie.
* Percentile intervals use the linear-interpolation quantile (Hyndman-Fan type 7, the default of
  ``numpy.percentile`` and hence of ``scipy.stats.bootstrap(method="percentile")``).
"""

from .resampling import (DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED,
                         FLOAT_TIE_TOLERANCE, MAX_EXACT_UNITS, BlockEndpoint, ContrastRow,
                         FlipTest, Interval, Resampler, family_bootstrap, family_flip_test, holm,
                         max_t_block, paired_family_bootstrap, percentile, query_bootstrap,
                         query_permutation_test, selection_adjusted, selection_table,
                         shared_resampler)
from .sensitivity import (CommonSupport, CrossedWeights, LeaveOneOut, Outcomes, PromotionBound,
                          Removal, common_support_ordering, crossed_bootstrap, crossed_distribution,
                          crossed_weights,
                          gold_memberships, judged_memberships, leave_one_document_out,
                          membership_components, outcome_class, promotion_bound,
                          remove_top_degree_documents, success_after, top_labels)
from ..errors import NclueError

__all__ = [
    "BlockEndpoint", "CommonSupport", "ContrastRow", "CrossedWeights", "DEFAULT_DRAWS",
    "DEFAULT_LEVEL", "DEFAULT_REPLICATES", "DEFAULT_SEED", "FLOAT_TIE_TOLERANCE", "FlipTest",
    "Interval", "LeaveOneOut", "MAX_EXACT_UNITS", "NclueError", "Outcomes", "PromotionBound",
    "Removal", "Resampler", "common_support_ordering", "crossed_bootstrap",
    "crossed_distribution", "crossed_weights",
    "family_bootstrap", "family_flip_test", "gold_memberships", "holm", "judged_memberships",
    "leave_one_document_out", "max_t_block", "membership_components", "outcome_class",
    "paired_family_bootstrap", "percentile", "promotion_bound", "query_bootstrap",
    "query_permutation_test", "remove_top_degree_documents", "selection_adjusted",
    "selection_table", "shared_resampler", "success_after", "top_labels",
]
