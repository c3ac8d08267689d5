"""Section conditions: outline titles normalized into canonical section names.

n-Clue paper, sec. 3.2: a named-section condition holds on the page where the section's heading
is.  A heading's title (from the PDF outline, or the documented text-rule fallback of the
sources step) is normalized by :func:`title_key`:

1. Unicode NFKC, whitespace runs collapsed to one space;
2. leading enumerators removed (repeatedly), each a whole whitespace-separated word: ``1``,
   ``2.3.4``/``2.3.``, ``A.1``, ``A.``/``A)``, Roman ``IV.``/``IV)`` (capitals IVXLC), ``(a)`` (1-4
   letters or digits), ``§ 2``/``§2.1``, and a word ``Chapter``/``Section``/``Part``/``Appendix``
   (capitalized, lower or upper case) followed by a number, one letter or a Roman numeral, with an
   optional ``.``, ``:`` or ``)``;
3. case folded, ``&`` read as ``and``, every character that is not a letter, digit or space
   replaced by a space, spaces collapsed.

The key is then mapped through the explicit alias table :data:`ALIASES` to its canonical key.
Keys in :data:`EXCLUDED` (structural pages such as "contents"), keys without a letter, shorter
than 3 characters or longer than 6 words are not section conditions.
"""

import re
import unicodedata
from typing import Dict, Optional, Tuple

#: alias key -> canonical key.  Only functional synonyms are merged (decided by hand, recorded):
#: spelling variants, singular/plural, and names that LaTeX classes give the same construct
#: (``\bibliography`` prints "References" in article and "Bibliography" in book/report).
ALIASES: Dict[str, str] = {
    "acknowledgments": "acknowledgements",
    "acknowledgement": "acknowledgements",
    "acknowledgment": "acknowledgements",
    "bibliography": "references",
    "literature": "references",
    "works cited": "references",
    "licence": "license",
    "licensing": "license",
    "copyright and license": "license",
    "copyright and licence": "license",
    "license and copyright": "license",
    "licence and copyright": "license",
    "changes": "change history",
    "change log": "change history",
    "changelog": "change history",
    "version history": "change history",
    "revision history": "change history",
    "example": "examples",
    "intro": "introduction",
    "frequently asked questions": "faq",
    "quick start": "getting started",
    "quickstart": "getting started",
    "known bugs": "known issues",
    "known problems": "known issues",
    "bugs": "known issues",
    "general index": "index",
    "thanks": "acknowledgements",
    "authors": "author",
    "the implementation": "implementation",
    "the code": "implementation",
    "code": "implementation",
    "package options": "options",
    "basic usage": "usage",
    "package installation": "installation",
    "bundle installation": "installation",
}

#: Display names of the canonical keys that the alias table introduces.
DISPLAY: Dict[str, str] = {
    "acknowledgements": "Acknowledgements",
    "references": "References",
    "license": "License",
    "change history": "Change History",
    "examples": "Examples",
    "introduction": "Introduction",
    "faq": "FAQ",
    "getting started": "Getting Started",
    "known issues": "Known Issues",
    "implementation": "Implementation",
    "options": "Options",
    "usage": "Usage",
    "installation": "Installation",
}

#: Structural titles that are not content sections (an index lists pages, it discusses nothing).
EXCLUDED = frozenset({
    "contents", "table of contents", "toc", "title", "title page", "cover", "front matter",
    "frontmatter", "back matter", "backmatter", "main matter", "mainmatter", "document",
    "untitled", "appendix", "appendices", "list of figures", "list of tables", "index",
    "symbols",  # the letter group that opens a generated (doc/makeindex) index
    # Admonition boxes and version notes that HTML/POD rendering turns into headings (v2).
    "note", "warning", "tip", "important", "attention", "caution", "danger", "hint", "see also",
    "part of the stable abi",
} | {f"{what} in version {major} {minor}" for what in ("new", "changed")
     for major in (2, 3) for minor in range(13)}
  | {f"deprecated since version {major} {minor}" for major in (2, 3) for minor in range(13)})

MAX_WORDS = 6

_END = r"(?=\s|$)"  # an enumerator is a whole whitespace-separated word
ENUMERATORS = (
    re.compile(r"^(?:[Cc]hapter|CHAPTER|[Ss]ection|SECTION|[Pp]art|PART|[Aa]ppendix|APPENDIX)\s+"
               r"(?:[0-9]+(?:\.[0-9]+)*|[A-Za-z]|[IVXLC]+)[.:)]?" + _END),
    re.compile(r"^[0-9]+(?:\.[0-9]+)*\.?" + _END),
    re.compile(r"^[A-Z](?:\.[0-9]+)+\.?" + _END),
    re.compile(r"^[A-Z][.)]" + _END),
    re.compile(r"^[IVXLC]+[.)]" + _END),
    re.compile(r"^\([0-9A-Za-z]{1,4}\)" + _END),
    re.compile(r"^\u00a7\s*[0-9]+(?:\.[0-9]+)*\.?" + _END),
)
_NON_WORD = re.compile(r"[^\w ]|_")
_SPACES = re.compile(r"\s+")


def strip_enumerators(title: str) -> str:
    """Title after NFKC, whitespace collapsing and removal of leading enumerators (step 1-2)."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFKC", title)).strip()
    changed = True
    while changed and text:
        changed = False
        for pattern in ENUMERATORS:
            stripped = pattern.sub("", text, count=1)
            if stripped != text:
                text = stripped.strip()
                changed = True
                break
    return text


def title_key(title: str) -> str:
    """Normalized key of a heading title (steps 1-3); may be empty."""
    text = strip_enumerators(title).casefold().replace("&", " and ")
    text = _NON_WORD.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def canonical_key(title: str, aliases: Optional[Dict[str, str]] = None,
                  excluded: Optional[frozenset] = None) -> Optional[str]:
    """Canonical section key of a heading title, or None when it is not a section condition."""
    table = ALIASES if aliases is None else aliases
    skip = EXCLUDED if excluded is None else excluded
    key = title_key(title)
    key = table.get(key, key)
    if len(key) < 3 or not any(ch.isalpha() for ch in key) or len(key.split(" ")) > MAX_WORDS:
        return None
    if key in skip:
        return None
    return key


def surface_form(title: str) -> str:
    """The heading as a reader sees it (enumerators removed, trailing colon or dot removed)."""
    return strip_enumerators(title).rstrip(" :.")


def display_name(key: str, surface_counts: Dict[str, int]) -> str:
    """Display name of a canonical key: the alias table's, else the most frequent surface form.

    ``surface_counts`` maps surface forms to the number of documents using them; ties go to the
    lexicographically smallest form.
    """
    if key in DISPLAY:
        return DISPLAY[key]
    if not surface_counts:
        return key
    best: Tuple[int, str] = min((-count, form) for form, count in surface_counts.items())
    return best[1]
