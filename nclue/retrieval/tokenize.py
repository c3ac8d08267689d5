"""The analyzer shared by every lexical retriever in :mod:`nclue.retrieval`.

Rule (stated so that any peer can reproduce it token for token):

1. lower-case the text with :meth:`str.lower` (as Lucene's ``LowerCaseFilter``);
2. split into maximal runs of Unicode letters and digits: the regular expression ``[^\\W_]+``
   (``\\w`` without the underscore), so ``"COVID-19"`` gives ``covid``, ``19`` and
   ``"\\begin{tabular}"`` gives ``begin``, ``tabular``;
3. drop the 33 words of Lucene's classic English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``,
   listed in :data:`STOPWORDS`).

No stemming and no length filter (single letters and digits are kept, as in Lucene's
``StandardAnalyzer``). The same function analyzes page text and query text.
"""

import re
from typing import FrozenSet, List

#: Lucene's classic English stop words (org.apache.lucene.analysis.en.EnglishAnalyzer).
STOPWORDS: FrozenSet[str] = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
    "this", "to", "was", "will", "with",
))

_TOKEN = re.compile(r"[^\W_]+")


def tokenize(text: str) -> List[str]:
    """Analyze ``text`` into index terms (see the module docstring for the rule)."""
    stop = STOPWORDS
    return [token for token in _TOKEN.findall(text.lower()) if token not in stop]
