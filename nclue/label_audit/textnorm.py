"""Quote normalization shared by the audit packet's script and the import.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.1: before accepting an item the browser
checks that "every positive answer has at least one in-pool page and a nontrivial quote; every
quote is a normalized substring of its selected page". The packet's JavaScript
(``assets/packet.js``) implements exactly the rule below; the import re-checks the result.

Normalization, applied code point by code point:

1. the code point is replaced by its NFKC form (ligatures, full-width forms, no-break spaces);
2. typographic quotes and dashes become ASCII (:data:`TYPOGRAPHIC`); the soft hyphen is dropped;
3. every run of whitespace (:data:`WHITESPACE`) becomes one space; leading and trailing spaces
   are dropped.

Letter case is kept, so a quote is exact up to these rules. A quote is *nontrivial* when its
normalized form has at least :data:`MIN_QUOTE_CHARS` characters, one of which is neither
whitespace nor ASCII punctuation.

Offsets are code points of the page text (Python string indices; the script counts code points
with ``Array.from``), end exclusive. The stored quote is the page text between the offsets, and
its sha256 is that of its UTF-8 bytes.
"""

import hashlib
import unicodedata
from typing import List, Optional, Tuple

MIN_QUOTE_CHARS = 4

WHITESPACE = frozenset(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f"
                       "\u3000\ufeff" + "".join(chr(c) for c in range(0x2000, 0x200B)))

TYPOGRAPHIC = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u00ad": "",
}

ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _pieces(ch: str) -> str:
    """One code point after steps 1 and 2."""
    return "".join(TYPOGRAPHIC.get(c, c) for c in unicodedata.normalize("NFKC", ch))


def normalize_with_map(text: str) -> Tuple[str, List[int]]:
    """The normalized text and, for each of its characters, the index of the raw code point
    it comes from (a collapsed space maps to the first whitespace code point of its run)."""
    out: List[str] = []
    origin: List[int] = []
    pending: Optional[int] = None
    for index, raw in enumerate(text):
        for ch in _pieces(raw):
            if ch in WHITESPACE:
                if pending is None:
                    pending = index
                continue
            if pending is not None and out:
                out.append(" ")
                origin.append(pending)
            pending = None
            out.append(ch)
            origin.append(index)
    return "".join(out), origin


def normalize(text: str) -> str:
    """The normalized form of ``text`` (module docstring)."""
    return normalize_with_map(text)[0]


def is_nontrivial(quote: str) -> bool:
    """At least MIN_QUOTE_CHARS normalized characters, one not whitespace or ASCII punctuation."""
    norm = normalize(quote)
    return len(norm) >= MIN_QUOTE_CHARS and any(
        ch not in ASCII_PUNCTUATION and ch != " " for ch in norm)


def locate(page_text: str, quote: str) -> Optional[Tuple[int, int]]:
    """Code-point offsets ``(start, end)`` of the first place where the normalized quote occurs
    in the normalized page text, mapped back to the raw text; None when it does not occur."""
    needle = normalize(quote)
    if not needle:
        return None
    haystack, origin = normalize_with_map(page_text)
    position = haystack.find(needle)
    if position < 0:
        return None
    return origin[position], origin[position + len(needle) - 1] + 1


def text_sha256(text: str) -> str:
    """Hex sha256 of the UTF-8 bytes of ``text`` (pages and quotes)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
