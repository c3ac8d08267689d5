"""The pre-specified, evidence-asymmetric repair policy, applied mechanically.

n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.2: "Presence and absence do not have equal
evidential status. Two independent valid quotes can establish that a supposed partial satisfies
an additional condition; failure to find a quote in three pages cannot establish document-wide
absence. We fixed the following policy before receiving the expanded-page responses: 1. Accept
A+E consensus increases supported by valid direct quotes and a distinct-page assignment. 2. Send
every A/E grade split ... to expanded-page adjudication. 3. Send every A+E consensus decrease
... to expanded-page adjudication"; sec. 10.4: "A raw two-of-three vote cannot enforce distinct
evidence pages", so labels are re-derived through the page gates, and "one would-be gold fails
the distinct-page gate" stays partial.

The policy is a versioned JSON file (``audit/label_audit/repair_policy_v1.json``) whose every
field takes one of a closed set of values implemented here; a sample's administrator key records
the file's sha256 when the sample is drawn, and import and repair refuse a policy whose bytes
differ, so the policy is fixed before any judgment is imported.

Per condition of an audited pair (construction decision = nonempty evidence page set):

- first pass (exactly ``first_pass.responses`` distinct response streams): both positive ->
  ``both_positive``; both negative -> ``both_negative_construction_negative`` or
  ``..._positive``; otherwise ``split``. ``accept`` makes the consensus final; ``adjudicate``
  queues the condition (its pair goes to the expanded-page poll; other conditions stay locked);
- adjudication: positive when at least ``adjudication.min_agreeing`` responses are positive and
  they outnumber the negative ones; negative symmetrically; otherwise the construction decision
  is retained and flagged;
- a queued condition without adjudication responses keeps the construction decision (``pending``);
- evidence pages: ``construction_kept_then_quotes`` keeps the construction pages of a condition
  that stays positive and takes the pages of the deciding valid quotes for a newly positive one;
  ``union`` adds those quote pages to the construction pages;
- the pair's label is re-derived from the page sets by the instrument's gates
  (:func:`nclue.instrument.gates.judge`), so a promotion that fails a page gate stays a subset;
  a pair left with no condition leaves the qrels (``zero_grade_pairs: remove``); a query left
  without a gold stays in the release and is reported (``zero_gold_queries: keep``: the frozen
  runs stay valid, and the query counts as a failure for every system).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence, Tuple

from ..errors import InputError, NclueError
from ..formats import PathLike, read_bytes, read_json, sha256_bytes

FORMAT = "nclue-repair-policy"
FIRST_PASS_CASES = ("both_positive", "both_negative_construction_negative",
                    "both_negative_construction_positive", "split")
FIRST_PASS_ACTIONS = ("accept", "adjudicate")
EVIDENCE_PAGES = ("construction_kept_then_quotes", "union")
DEFAULT_POLICY = Path(__file__).resolve().parent.parent.parent / "audit" / "label_audit" / "repair_policy_v1.json"


@dataclass(frozen=True)
class Policy:
    """A loaded repair policy (see the module docstring for the meaning of every field)."""

    path: str
    sha256: str
    name: str
    version: int
    first_pass_responses: int
    first_pass: Mapping[str, str]
    min_agreeing: int
    evidence_pages: str

    def ref(self) -> dict:
        """What an administrator key records about the policy."""
        return {"policy": self.name, "version": self.version, "sha256": self.sha256,
                "file": Path(self.path).name}


@dataclass(frozen=True)
class Response:
    """One evaluator's validated answer to one condition: positive, and the quoted pages."""

    positive: bool
    pages: Tuple[int, ...]


@dataclass(frozen=True)
class Decision:
    """The policy's decision for one condition.

    ``status``: ``accepted`` (first-pass consensus), ``adjudicate`` (queued), ``adjudicated``,
    ``retained`` (adjudication without a decision) or ``pending`` (queued, no poll yet);
    ``positive`` is the decision in force; ``pages`` the pages of the deciding valid quotes.
    """

    positive: bool
    status: str
    rule: str
    pages: Tuple[int, ...]


def _choice(data: Mapping[str, Any], name: str, allowed: Sequence[str], path: PathLike) -> str:
    value = data.get(name)
    if value not in allowed:
        raise InputError(path, f"policy field {name!r} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def load_policy(path: PathLike = DEFAULT_POLICY) -> Policy:
    """Read and validate a policy file (every field must take an implemented value)."""
    raw = read_bytes(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(path, f"not a repair policy (format {FORMAT!r} expected)")
    name, version = data.get("policy"), data.get("version")
    if not isinstance(name, str) or not name or isinstance(version, bool) or not isinstance(version, int):
        raise InputError(path, "a policy needs a string 'policy' and an integer 'version'")
    first = data.get("first_pass")
    adjud = data.get("adjudication")
    if not isinstance(first, dict) or not isinstance(adjud, dict):
        raise InputError(path, "a policy needs 'first_pass' and 'adjudication' objects")
    responses = first.get("responses")
    if responses != 2:
        raise InputError(path, "first_pass.responses must be 2 (two independent evaluators)")
    cases = {case: _choice(first, case, FIRST_PASS_ACTIONS, path) for case in FIRST_PASS_CASES}
    agreeing = adjud.get("min_agreeing")
    if isinstance(agreeing, bool) or not isinstance(agreeing, int) or agreeing < 1:
        raise InputError(path, "adjudication.min_agreeing must be an integer >= 1")
    _choice(adjud, "otherwise", ("retain",), path)
    _choice(data, "pending", ("retain",), path)
    _choice(data, "labels", ("gates",), path)
    _choice(data, "zero_grade_pairs", ("remove",), path)
    _choice(data, "zero_gold_queries", ("keep",), path)
    evidence = _choice(data, "evidence_pages", EVIDENCE_PAGES, path)
    return Policy(path=str(path), sha256=sha256_bytes(raw), name=name, version=version,
                  first_pass_responses=responses, first_pass=cases, min_agreeing=agreeing,
                  evidence_pages=evidence)


def check_recorded(policy: Policy, recorded: Mapping[str, Any], where: PathLike) -> None:
    """Refuse a policy whose bytes differ from the one recorded when the sample was drawn."""
    if recorded.get("sha256") != policy.sha256:
        raise InputError(where, f"the repair policy {policy.path} (sha256 {policy.sha256[:12]}...) "
                                f"is not the one fixed when this sample was drawn "
                                f"({str(recorded.get('sha256'))[:12]}..., "
                                f"{recorded.get('policy')} v{recorded.get('version')})")


def _union(responses: Sequence[Response]) -> Tuple[int, ...]:
    return tuple(sorted({p for r in responses if r.positive for p in r.pages}))


def first_pass_decision(policy: Policy, construction_positive: bool,
                        responses: Sequence[Response]) -> Decision:
    """Decision after the first pass (sec. 10.2.2 rules 1-3)."""
    if len(responses) != policy.first_pass_responses:
        raise NclueError(f"the first pass needs {policy.first_pass_responses} responses per "
                         f"condition, got {len(responses)}")
    positives = sum(1 for r in responses if r.positive)
    if positives == len(responses):
        case = "both_positive"
    elif positives == 0:
        case = ("both_negative_construction_positive" if construction_positive
                else "both_negative_construction_negative")
    else:
        case = "split"
    rule = f"first_pass.{case}"
    if policy.first_pass[case] == "accept":
        return Decision(positives == len(responses), "accepted", rule, _union(responses))
    return Decision(construction_positive, "adjudicate", rule, ())


def adjudication_decision(policy: Policy, construction_positive: bool,
                          responses: Sequence[Response]) -> Decision:
    """Decision after the expanded-page poll (module docstring)."""
    positives = sum(1 for r in responses if r.positive)
    negatives = len(responses) - positives
    if positives >= policy.min_agreeing and positives > negatives:
        return Decision(True, "adjudicated", "adjudication.positive", _union(responses))
    if negatives >= policy.min_agreeing and negatives > positives:
        return Decision(False, "adjudicated", "adjudication.negative", ())
    return Decision(construction_positive, "retained", "adjudication.no_decision", ())


def pending_decision(construction_positive: bool) -> Decision:
    """A queued condition with no adjudication responses yet keeps the construction decision."""
    return Decision(construction_positive, "pending", "pending", ())


def page_set(policy: Policy, construction_pages: Sequence[int], decision: Decision) -> Tuple[int, ...]:
    """The condition's evidence pages in the repaired copy (module docstring)."""
    if not decision.positive:
        return ()
    if construction_pages:
        if policy.evidence_pages == "union":
            return tuple(sorted(set(construction_pages) | set(decision.pages)))
        return tuple(sorted(set(construction_pages)))
    return tuple(sorted(set(decision.pages)))
