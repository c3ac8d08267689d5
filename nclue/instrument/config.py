"""Construction configuration (every number and list that shapes a release), recorded verbatim
in ``provenance/construction_<release>.json``.  Presets for the v1 (page-level) and v2
(document-level) releases; a JSON file may override any field."""

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Dict, Tuple

from ..errors import InputError

_PLACEHOLDER = "placeholder in examples, not a topic"
_ARTEFACT = "text-extraction artefact (logo or footnote marker split or glued)"
_BOILERPLATE = ("package-preamble boilerplate (docstrip/ltxdoc implementation listings of most package "
                "manuals), not a topic")

#: Reviewed exclusions of entity terms that pass the shape and df rules: term -> reason.
#: Decided by reading the candidate vocabulary of the TeX Live pool (provenance/conditions_v1.md
#: lists every rejected in-range candidate with its reason).
DEFAULT_ENTITY_EXCLUDE: Dict[str, str] = {
    "ABC": _PLACEHOLDER, "ABCD": _PLACEHOLDER, "AAA": _PLACEHOLDER, "CBA": _PLACEHOLDER,
    "XYZ": _PLACEHOLDER, "YYYY": _PLACEHOLDER, "FOO": _PLACEHOLDER, "TODO": "editorial marker, not a topic",
    "CTAN1": _ARTEFACT, "LAT": _ARTEFACT, "LATEX2": _ARTEFACT,
    "USA": "postal addresses in licence boilerplate (Boston, MA ... USA), not a topic",
    "DEPENDENT": "English word in capitals (SYSTEM DEPENDENT) that the capitals rule misses",
    "MERCHANTABILITY": "licence warranty disclaimer boilerplate, not a topic",
    "FITNESS": "licence warranty disclaimer boilerplate, not a topic",
    "NONINFRINGEMENT": "licence warranty disclaimer boilerplate, not a topic",
    "UIT": "publisher name in bibliography entries (UIT Cambridge), not a topic",
    "IWT": "publisher name in bibliography entries (IWT Vaterstetten), not a topic",
    "TMP": "fragment of internal macro names in implementation listings (\\TMP@EnsureCode)",
    "EnsureCode": "fragment of internal macro names in implementation listings (\\TMP@EnsureCode)",
    "AtEnd": "fragment of internal macro names in implementation listings (\\LTXcmds@AtEnd)",
    "BinGOs": "a person's nickname (Perl release manager); author names are not conditions",
    "CAPITAL": "English word from Unicode character names (LATIN CAPITAL LETTER A)",
    "LETTER": "English word from Unicode character names (LATIN CAPITAL LETTER A)",
    "GMS94": "citation label built from author initials (author names are not conditions)",
    "NeedsTeXFormat": _BOILERPLATE, "ProvidesPackage": _BOILERPLATE, "ProvidesFile": _BOILERPLATE,
    "ProvidesClass": _BOILERPLATE, "ProvidesExplPackage": _BOILERPLATE,
    "RequirePackage": _BOILERPLATE, "DeclareOption": _BOILERPLATE, "ProcessOptions": _BOILERPLATE,
    "ExecuteOptions": _BOILERPLATE, "CurrentOption": _BOILERPLATE,
    "PassOptionsToPackage": _BOILERPLATE, "PassOptionsToClass": _BOILERPLATE,
    "PackageError": _BOILERPLATE, "PackageWarning": _BOILERPLATE,
    "PackageWarningNoLine": _BOILERPLATE, "PackageInfo": _BOILERPLATE, "ClassError": _BOILERPLATE,
    "ClassWarning": _BOILERPLATE, "ClassInfo": _BOILERPLATE, "MessageBreak": _BOILERPLATE,
    "LoadClass": _BOILERPLATE, "DocInput": _BOILERPLATE, "RecordChanges": _BOILERPLATE,
    "CodelineIndex": _BOILERPLATE, "EnableCrossrefs": _BOILERPLATE, "DisableCrossrefs": _BOILERPLATE,
    "OnlyDescription": _BOILERPLATE, "ProcessKeyvalOptions": _BOILERPLATE,
    "SetupKeyvalOptions": _BOILERPLATE, "DeclareBoolOption": _BOILERPLATE,
    "DeclareStringOption": _BOILERPLATE, "AtEndOfPackage": _BOILERPLATE,
    "AtEndOfClass": _BOILERPLATE, "ProcessOptionsX": _BOILERPLATE, "ExecuteOptionsX": _BOILERPLATE,
    "ExplSyntaxOn": _BOILERPLATE, "ExplSyntaxOff": _BOILERPLATE,
}


@dataclass(frozen=True)
class ConstructionConfig:
    """Parameters of :func:`nclue.instrument.construction.construct`.

    ``n_queries`` test queries, a fraction ``three_fraction`` of them with three conditions
    (rounded half up), the rest with two.  Conditions need ``min_df <= df <= max_df_fraction *
    documents``.  A conjunction is *rare* when 1 to ``max_holders`` documents hold every condition
    and at least one of them is gold.  One document may be gold for at most ``max_gold_per_doc``
    test queries and one condition may appear in at most ``max_queries_per_condition`` of them.
    A condition whose document set has Jaccard similarity >= ``max_jaccard`` with that of a more
    frequent kept condition is dropped as redundant (template families such as the datetime2
    region modules repeat one macro vocabulary in 26 documents).
    ``page_gates`` False gives a document-level release (every all-condition document is gold).
    """

    release: str = "v1"
    seed: int = 20261201
    n_queries: int = 1000
    three_fraction: float = 0.2
    min_df: int = 20
    max_df_fraction: float = 0.25
    max_entity_terms: int = 120
    max_section_conditions: int = 60
    capitalized_ratio: float = 0.25
    max_holders: int = 5
    max_gold_per_doc: int = 10
    max_queries_per_condition: int = 40
    max_jaccard: float = 0.8
    page_gates: bool = True
    excluded_page_flags: Tuple[str, ...] = ("empty", "garbage", "index", "toc")
    entity_exclude: Dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ENTITY_EXCLUDE))
    entity_terms: Tuple[str, ...] = ()
    n_train: int = 2000
    n_val: int = 250
    qid_prefix: str = ""

    def prefix(self) -> str:
        return self.qid_prefix or f"{self.release}_"

    def as_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data["excluded_page_flags"] = sorted(self.excluded_page_flags)
        data["entity_terms"] = list(self.entity_terms)
        return data


PRESETS: Dict[str, Dict[str, Any]] = {
    "v1": {},
    "v2": {"release": "v2", "n_queries": 225, "page_gates": False, "min_df": 10,
           "max_gold_per_doc": 6, "max_queries_per_condition": 15, "n_train": 0, "n_val": 0},
}


def from_dict(data: Dict[str, Any], source: str = "<config>") -> ConstructionConfig:
    """Build a config from a preset-free mapping; unknown or mistyped fields are InputErrors."""
    known = {f.name: f for f in fields(ConstructionConfig)}
    defaults = ConstructionConfig()
    values: Dict[str, Any] = {}
    for name, value in sorted(data.items()):
        if name not in known:
            raise InputError(source, f"unknown configuration field {name!r}")
        expected = type(getattr(defaults, name))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if expected is tuple and isinstance(value, list):
            value = tuple(value)
        if isinstance(value, bool) != (expected is bool) or not isinstance(value, expected):
            raise InputError(source, f"configuration field {name!r} must be {expected.__name__}")
        values[name] = value
    config = ConstructionConfig(**values)
    _check(config, source)
    return config


def preset(name: str, overrides: Dict[str, Any] = None, source: str = "<config>") -> ConstructionConfig:
    if name not in PRESETS:
        raise InputError(source, f"unknown release preset {name!r} (known: {', '.join(sorted(PRESETS))})")
    merged = dict(PRESETS[name])
    merged.update(overrides or {})
    return from_dict(merged, source)


def _check(config: ConstructionConfig, source: str) -> None:
    problems = []
    if config.n_queries < 0 or config.n_train < 0 or config.n_val < 0:
        problems.append("query counts must be >= 0")
    if not 0.0 <= config.three_fraction <= 1.0:
        problems.append("three_fraction must lie in [0, 1]")
    if config.min_df < 1:
        problems.append("min_df must be >= 1")
    if not 0.0 < config.max_jaccard <= 1.0:
        problems.append("max_jaccard must lie in (0, 1]")
    if not 0.0 < config.max_df_fraction <= 1.0:
        problems.append("max_df_fraction must lie in (0, 1]")
    if config.max_holders < 1 or config.max_gold_per_doc < 1 or config.max_queries_per_condition < 1:
        problems.append("max_holders, max_gold_per_doc and max_queries_per_condition must be >= 1")
    if not all(isinstance(v, str) for v in config.entity_exclude.values()):
        problems.append("entity_exclude maps terms to reasons (strings)")
    if problems:
        raise InputError(source, "; ".join(problems))
