"""Page-level scoring over stored page vectors (numpy; producers only).

n-Clue paper, supplement 2: page MaxSim ("best page": a document's score is its best page's
score) and the page-pooling variant that averages the three highest page scores ("top-3"; a
document with fewer than 3 pages averages all its pages). Page score = inner product of the
query's and the page's vectors, computed in float64: L2-normalised MiniLM embeddings (= cosine;
``pages.npy``) or SPLADE-tiny vocabulary vectors (``pages.npz``, a scipy CSR matrix).
"""

import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np

from common import BUILD, PAGES_TOP_DOCS, round6, top_k_desc

# Pages delivered per top-10 document: a joint run gives its 3 best pages (either aggregation);
# a condition-wise run gives each condition's best page (<= 3 distinct pages). Same budget.
PAGES_DELIVERED = 3

AGGREGATIONS = ("best", "top3")


class PageCollection:
    """Page embeddings grouped by document (documents sorted by docid, pages by number)."""

    def __init__(self, folder: Path = BUILD / "minilm"):
        folder = Path(folder)
        if (folder / "pages.npz").exists():  # learned-sparse page vectors (splade_runs.py)
            import scipy.sparse
            emb = scipy.sparse.load_npz(folder / "pages.npz").astype(np.float64).tocsr()
        else:
            emb = np.load(folder / "pages.npy").astype(np.float64)
        rows = [json.loads(line) for line in open(folder / "pages_index.jsonl")]
        order = sorted(range(len(rows)), key=lambda i: (rows[i]["docid"], rows[i]["page"]))
        self.emb = emb[order]
        self.page_no = np.array([rows[i]["page"] for i in order], dtype=np.int64)
        docids = [rows[i]["docid"] for i in order]
        self.docs: List[str] = sorted(set(docids))
        starts, counts = [], []
        prev = None
        for i, d in enumerate(docids):
            if d != prev:
                starts.append(i)
                counts.append(0)
                prev = d
            counts[-1] += 1
        self.starts = np.array(starts)
        self.counts = np.array(counts)
        width = int(self.counts.max())
        pad = np.full((len(self.docs), width), -1, dtype=np.int64)
        for j, (s, c) in enumerate(zip(starts, counts)):
            pad[j, :c] = np.arange(s, s + c)
        self.pad = pad
        self.mask = pad >= 0
        self.manifest = json.load(open(folder / "manifest.json"))

    @staticmethod
    def manifest_of(folder: Path = BUILD / "minilm") -> dict:
        return json.load(open(Path(folder) / "manifest.json"))

    def page_scores(self, vectors: np.ndarray, chunk: int = 256) -> np.ndarray:
        """[pages, n] page scores of n query vectors (one float64 matrix product per chunk;
        the same values as ``page_matrix`` computes one vector at a time, up to BLAS order)."""
        v = np.asarray(vectors, dtype=np.float64)
        out = np.empty((self.emb.shape[0], v.shape[0]))
        for i in range(0, v.shape[0], chunk):
            out[:, i:i + chunk] = self.emb @ v[i:i + chunk].T
        return out

    def page_matrix(self, q: np.ndarray, scores: np.ndarray = None) -> np.ndarray:
        """[docs, max_pages] page scores of one query vector (or of its precomputed page
        ``scores``); padding is -inf."""
        if scores is None:
            scores = self.emb @ np.asarray(q, dtype=np.float64)
        m = scores[np.where(self.mask, self.pad, 0)]
        m[~self.mask] = -np.inf
        return m

    def doc_scores(self, m: np.ndarray, aggregation: str) -> np.ndarray:
        if aggregation == "best":
            return m.max(axis=1)
        if aggregation == "top3":
            k = min(3, m.shape[1])
            top = -np.partition(-m, k - 1, axis=1)[:, :k]
            finite = np.isfinite(top)
            return np.where(finite, top, 0.0).sum(1) / finite.sum(1)
        raise ValueError(aggregation)

    def top_pages(self, m: np.ndarray, doc_index: int, k: int) -> List[Tuple[int, float]]:
        """The k best pages of one document: [(page number, score)], score desc, page asc."""
        c = int(self.counts[doc_index])
        vals = m[doc_index, :c]
        pages = self.page_no[self.pad[doc_index, :c]]
        order = np.lexsort((pages, -vals))[:k]
        return [(int(pages[i]), float(vals[i])) for i in order]


def ranked_row(qid: str, docs: Sequence[str], scores: Sequence[float],
               pages: Dict[str, List[Tuple[int, float]]] = None) -> dict:
    row = {"qid": qid, "docs": list(docs), "scores": [round6(s) for s in scores]}
    if pages is not None:
        row["pages"] = {d: [[p, round6(s)] for p, s in items] for d, items in pages.items()}
    return row


def joint_row(coll: PageCollection, qid: str, q: np.ndarray, aggregation: str, depth: int,
              scores: np.ndarray = None) -> dict:
    m = coll.page_matrix(q, scores)
    s = coll.doc_scores(m, aggregation)
    idx = top_k_desc(s, depth)
    pages = {coll.docs[j]: coll.top_pages(m, j, PAGES_DELIVERED) for j in idx[:PAGES_TOP_DOCS]}
    return ranked_row(qid, [coll.docs[j] for j in idx], [float(s[j]) for j in idx], pages)


def ranked_list(coll: PageCollection, q: np.ndarray, aggregation: str, depth: int,
                scores: np.ndarray = None):
    """(docids, scores, page matrix) of one query vector."""
    m = coll.page_matrix(q, scores)
    s = coll.doc_scores(m, aggregation)
    idx = top_k_desc(s, depth)
    return [coll.docs[j] for j in idx], [float(s[j]) for j in idx], m
