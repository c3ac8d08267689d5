"""Plain-Python retrievers for the n-Clue capability matrix (standard library only).

One module per method family (n-Clue paper, sec. 3.3 and supplement 2):

- :mod:`.tokenize`: the documented analyzer shared by every lexical method.
- :mod:`.index`: the page collection and an impact-precomputed inverted index (page or document
  units) with heap top-k selection.
- :mod:`.bm25`: Lucene BM25 at page and document level; BM25-OR, BM25-AND, page MaxSim analogue
  (best page), top-3 page average.
- :mod:`.decomposition`: condition-wise lists combined by min, product or harmonic mean.
- :mod:`.sdr`: distinct-page SDR, the exact bottleneck assignment.
- :mod:`.fusion`: equal-weight reciprocal rank fusion and round-robin interleaving.
- :mod:`.controls`: privileged oracle, single-page AND floor, condition-frequency prior, masking.
"""
