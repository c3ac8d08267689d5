"""Entity-phrase conditions: a vocabulary of technical terms chosen by document frequency.

n-Clue paper, sec. 3.2: an entity-phrase condition holds on every page that mentions the phrase.
Here a page *mentions* a term when the term occurs as a whole word, case-sensitively: the
characters immediately before and after the occurrence (if any) are not word characters
(letters, digits or underscore, Python's ``\\w``).  Equivalently the term equals one maximal run
of word characters on the page.  Case sensitivity is essential (corpus note: case-insensitive
"context" finds ConTeXt in 559 documents, the case-sensitive term in 31).

Candidate terms (shape rule, :func:`term_shape`): ASCII letters and digits only, 3 to 30
characters, starting with a letter, and either

- ``mixed``: an upper-case letter after the first character and at least one lower-case letter
  (LaTeX, BibTeX, pdfTeX, PostScript, OpenType, ConTeXt, RequirePackage), or
- ``acronym``: upper-case letters (digits allowed after the first), at least two letters, not a
  Roman numeral (PDF, CTAN, ASCII, UTF8);

and not an expl3 argument signature (nTF, NnN, cTF: only the specifier letters NncVvoxefpwD,
optionally ending in T, F or TF).

Surface variants: pdftotext renders the TeX logos in small capitals, so one term appears as
``BibTeX`` and ``BibTEX``, ``ConTeXt`` and ``ConTEXt``, ``MiKTeX`` and ``mikTEX``.  Mixed-case
candidates with equal case-folded forms are one condition (:func:`group_key`); a page supports it
when any variant occurs.  Other acronyms are never merged with other spellings (CONTEXT in a heading
is the English word); an all-capitals TeX logo (LATEX3, XELATEX) is.  The condition is shown as :func:`display_variant`.

Plain lower-case words (package names such as geometry, listings) and capitalized words are not
candidates: their case cannot tell the technical reading from the English word.  An acronym is
taken to be an English word set in capitals (THE, NOTE, WARNING) and dropped when its capitalized
form (The, Note, Warning) occurs in at least ``capitalized_ratio`` times as many documents.
Person names are not conditions: the shape rule already removes most; the remaining ones, and
non-technical words that pass it, are listed with their reason in the configuration's
``entity_exclude`` table after review of the vocabulary.

Document frequency counts documents with at least one *supporting* page: pages flagged empty,
garbage, toc or index (configurable) never support an entity.
"""

import re
from collections import Counter
from typing import AbstractSet, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

WORD_RUN = re.compile(r"\w+")
_ROMAN = re.compile(r"^[IVXLCDM]+$")
#: expl3 argument signatures (``\\foo:nTF``, ``\\bar:NnN``) are word runs of specifier letters.
EXPL3_SIGNATURE = re.compile(r"^[NncVvoxefpwD]*(?:TF|T|F)?$")
_ASCII_ALNUM = re.compile(r"^[A-Za-z][A-Za-z0-9]{2,29}$")


def term_shape(token: str) -> Optional[str]:
    """``"mixed"``, ``"acronym"`` or None (not a candidate term), by the shape rule above."""
    if not _ASCII_ALNUM.match(token) or EXPL3_SIGNATURE.match(token):
        return None
    letters = [ch for ch in token if ch.isalpha()]
    if any(ch.isupper() for ch in token[1:]) and any(ch.islower() for ch in token):
        return "mixed"
    if all(ch.isupper() for ch in letters) and token[0].isupper() and len(letters) >= 2:
        if _ROMAN.match(token):
            return None
        return "acronym"
    return None


def page_words(text: str) -> Set[str]:
    """The set of maximal word-character runs of a page (whole-word matching units)."""
    return set(WORD_RUN.findall(text))


def supporting(flags: Iterable[str], excluded_flags: FrozenSet[str]) -> bool:
    """True when a page with these flags may support an entity condition."""
    return not (set(flags) & excluded_flags)


def document_frequencies(doc_words: Iterable[Set[str]]) -> Counter:
    """Number of documents whose supporting pages contain each word."""
    counts: Counter = Counter()
    for words in doc_words:
        counts.update(words)
    return counts


_TEX_LOGO = re.compile(r"TEX(?!T)")


def group_key(token: str) -> Optional[str]:
    """The condition a candidate token belongs to: case-folded for mixed case and for a TeX logo
    set entirely in capitals (LATEX3, XELATEX, TEXMF: ``TEX`` not followed by ``T``, so TEXT and
    CONTEXT stay apart), the token itself for any other acronym; None for a non-candidate."""
    shape = term_shape(token)
    if shape is None:
        return None
    if shape == "mixed" or _TEX_LOGO.search(token):
        return token.casefold()
    return token


def display_variant(variant_df: Mapping[str, int]) -> str:
    """The shown spelling of a group: the most frequent variant without the small-capitals logo
    artefact ``TEX`` (ties: the smaller string); if every variant has it, the most frequent."""
    clean = {v: n for v, n in variant_df.items() if "TEX" not in v}
    pool = clean or dict(variant_df)
    return min(pool, key=lambda v: (-pool[v], v))


def select_vocabulary(group_df: Mapping[str, int], variant_df: Mapping[str, Mapping[str, int]],
                      word_df: Mapping[str, int], n_documents: int, min_df: int,
                      max_df_fraction: float, capitalized_ratio: float, exclude: Mapping[str, str],
                      max_terms: int) -> Tuple[List[Tuple[str, int, str, Tuple[str, ...]]], Dict[str, str]]:
    """Choose entity terms; return ``([(display, df, shape, variants)], {display: reason})``.

    ``group_df`` counts documents with any variant of a group, ``variant_df[group]`` each
    variant's documents, ``word_df`` every word's documents (for the capitals rule).  A group
    with ``min_df <= df <= max_df_fraction * n_documents`` is kept unless it is an English word in
    capitals (see module docstring) or its display name is listed in ``exclude``.  Kept terms are
    ordered by descending df, then display name; the first ``max_terms`` are used.  The rejection
    map lists only in-range candidates (the decisions worth recording).
    """
    max_df = max_df_fraction * n_documents
    kept: List[Tuple[str, int, str, Tuple[str, ...]]] = []
    rejected: Dict[str, str] = {}
    for group in sorted(group_df):
        count = group_df[group]
        if count < min_df or count > max_df:
            continue
        display = display_variant(variant_df[group])
        shape = term_shape(display)
        if shape == "acronym":
            capitalized = display[0] + display[1:].lower()
            if word_df.get(capitalized, 0) >= capitalized_ratio * count:
                rejected[display] = (f"English word in capitals ({capitalized}: df "
                                     f"{word_df.get(capitalized, 0)})")
                continue
        if display in exclude:
            rejected[display] = exclude[display]
            continue
        kept.append((display, count, shape, tuple(sorted(variant_df[group]))))
    kept.sort(key=lambda item: (-item[1], item[0]))
    for display, _, _, _ in kept[max_terms:]:
        rejected[display] = f"beyond the {max_terms} most frequent terms"
    return kept[:max_terms], rejected


def term_pages(page_word_sets: Sequence[Optional[AbstractSet[str]]],
               variants: Sequence[str]) -> Tuple[int, ...]:
    """1-based pages whose word set contains a variant (None marks a non-supporting page)."""
    return tuple(number for number, words in enumerate(page_word_sets, start=1)
                 if words is not None and any(v in words for v in variants))
