"""The audit report of one transcription, as JSON and as Markdown (``nclue audit-paper``)."""

from typing import Any, Dict, Mapping, Optional, Sequence

from .evaluator import VERDICT_ORDER
from .relations import Result
from .reproduction import reproduction_counts
from .transcription import Transcription
from .verdicts import counts_by_kind, ordered, summary_line, verdict_counts


def report_json(tr: Transcription, results: Sequence[Result],
                reproduction: Optional[Sequence[Mapping[str, Any]]] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {
        "paper": tr.paper, "seed": tr.seed, "transcription": tr.path,
        "values": len(tr.values), "relations": len(results),
        "summary": verdict_counts(results), "summary_line": summary_line(tr.paper, results),
        "by_kind": counts_by_kind(results),
        "results": [r.as_dict() for r in ordered(results)],
        "not_transcribed": list(tr.not_transcribed),
    }
    if reproduction is not None:
        out["reproduction"] = list(reproduction)
        out["reproduction_summary"] = reproduction_counts(reproduction)
    return out


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(tr: Transcription, results: Sequence[Result],
                    reproduction: Optional[Sequence[Mapping[str, Any]]] = None) -> str:
    c = verdict_counts(results)
    lines = [f"# Paper audit: {tr.paper}", "",
             f"Transcription `{tr.path}` ({len(tr.values)} printed values) of seed `{tr.seed}`.", "",
             f"**{summary_line(tr.paper, results)}**", "",
             "| relation kind | " + " | ".join(VERDICT_ORDER) + " | all |",
             "| --- |" + " --- |" * (len(VERDICT_ORDER) + 1)]
    for kind, kc in counts_by_kind(results).items():
        lines.append(f"| {kind} | " + " | ".join(str(kc[v]) for v in VERDICT_ORDER)
                     + f" | {sum(kc.values())} |")
    lines.append("| all | " + " | ".join(str(c[v]) for v in VERDICT_ORDER) + f" | {len(results)} |")
    lines += ["", "Tolerance rule: each printed input contributes half a unit in its last printed "
              "place (counts contribute 0); an `equal` relation is EXACT when the value computed "
              "from the printed inputs rounds to the printed result, WITHIN_ROUNDING when "
              "|got - expected| <= tolerance (sum of the half-units of every input and of the "
              "result; exact interval bounds for products and ratios), FAIL otherwise. A `same` "
              "relation (one quantity printed twice) allows no rounding slack. `grim` and "
              "`count` relations require whole counts k out of N; one that could not have failed "
              "for its N and printed precision is NOT_INFORMATIVE. A relation that fails only "
              "under a reading the paper does not fix is REVIEW, counted apart from FAIL, and "
              "its reading follows its detail. A FAIL's review (the reading of the paper that "
              "explains it) follows its detail.", ""]
    lines += ["| id | category | verdict | inputs | expected | got | tolerance | detail |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in ordered(results):
        inputs = ", ".join(f"{vid}={text}" for vid, text in r.inputs)
        detail = (r.detail + (f" — {r.note}" if r.note else "")
                  + (f" — fails if: {r.reading}" if r.reading and r.verdict == "REVIEW" else "")
                  + (f" — review: {r.review}" if r.review and r.verdict in ("FAIL", "REVIEW") else ""))
        lines.append("| " + " | ".join(_md_cell(x) for x in (
            r.rid, r.category, r.verdict, inputs, r.expected, r.got, r.tolerance, detail)) + " |")
    if tr.not_transcribed:
        lines += ["", "## Not transcribed", ""]
        for item in tr.not_transcribed:
            lines.append(f"- {item.get('id')}: {item.get('reason')}")
    if reproduction is not None:
        rc = reproduction_counts(reproduction)
        lines += ["", "## Reproduction from release data", "",
                  f"{rc['reproduced']} reproduced, {rc['not_reproduced']} not reproduced, "
                  f"{rc['no_input']} without inputs in the release.", "",
                  "| value | printed | run | measure | slice | recomputed | status |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for item in reproduction:
            lines.append("| " + " | ".join(_md_cell(x) for x in (
                item["value"], item["printed"], item["run"], item["measure"],
                item.get("slice") or "all", item.get("recomputed", ""), item["status"])) + " |")
    return "\n".join(lines) + "\n"
