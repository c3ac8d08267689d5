"""The release report as a document: REPORT.md, Figure 2 analogues (SVG) and one static HTML page.

``report.json`` may add, beside its tables::

    "title": "...", "intro": ["paragraph", ...],
    "figures": [
      {"id": "figure2a", "kind": "landscape", "runs": [...] | "fair", "labelled": [...], "caption": "..."},
      {"id": "figure2b", "kind": "delta_plane", "caption": "...",
       "effects": [{"label", "block", "base", "variant"}, ...], "seed": 11, "replicates": 1000}]

``"fair"`` selects every run that is not a control (family ``control``, ``"control": true``) and
not privileged (``"privileged": true``). The delta plane
places each paired effect at (delta Gold Hit@k, delta n-Clue Score@k) with its 95%
family-clustered bootstrap interval on both axes (n-Clue paper, Figure 2(b), sec. 3.4).
"""

from typing import Any, Dict, List, Mapping, Sequence, Tuple

from . import inference
from .errors import InputError
from .figures import LandscapePoint, PairedEffect, delta_plane_svg, landscape_svg
from .findings import findings_sentences, summary_counts
from .html_report import render_report_html
from .release import gold_families
from .report import ReleaseContext, table_markdown
from .tables import Table


def _fair_runs(ctx: ReleaseContext) -> List[str]:
    """Runs that are neither controls nor privileged (n-Clue paper, Figure 2(a): "fair method
    rows"): an index entry with ``"family": "control"``, ``"control": true`` or
    ``"privileged": true`` (an oracle reads the qrels or construction facts) is left out."""
    return sorted(r for r, e in ctx.index.items()
                  if e.info.get("family") != "control" and not e.info.get("control")
                  and not e.info.get("privileged"))


def landscape_figure(spec: Mapping[str, Any], ctx: ReleaseContext) -> str:
    """Figure 2(a) analogue: Gold Hit@k against n-Clue Score@k, one point per run."""
    runs = _fair_runs(ctx) if spec.get("runs", "fair") == "fair" else list(spec["runs"])
    k = ctx.k
    points = []
    for run_id in runs:
        scores = ctx.scores(run_id)
        family = str(ctx.index[run_id].info.get("family", "other"))
        points.append(LandscapePoint(run_id, family, scores[f"gold_hit@{k}"], scores[f"nclue_score@{k}"]))
    labelled = [r for r in spec.get("labelled", []) if r in runs]
    return landscape_svg(points, title=spec.get("title", f"Gold Hit@{k} vs n-Clue Score@{k}"),
                         labelled=labelled, figure_id=spec["id"],
                         x_label=f"Gold Hit@{k} (points)", y_label=f"n-Clue Score@{k} (points)")


def delta_plane_figure(spec: Mapping[str, Any], ctx: ReleaseContext) -> str:
    """Figure 2(b) analogue: paired effects with family-bootstrap intervals on both axes."""
    k = ctx.k
    families = gold_families(ctx.release)
    seed = spec.get("seed", inference.DEFAULT_SEED)
    replicates = spec.get("replicates", inference.DEFAULT_REPLICATES)
    effects = []
    resamplers: Dict[frozenset, inference.Resampler] = {}  # shared draws; same intervals
    for item in spec.get("effects", []):
        intervals = []
        for measure in (f"gold_hit@{k}", f"nclue_score@{k}"):
            base = ctx.vectors(item["base"])[measure]
            variant = ctx.vectors(item["variant"])[measure]
            iv = inference.shared_resampler(resamplers, base, families, seed).paired_bootstrap(
                base, variant, replicates=replicates)
            intervals.append((100.0 * iv.estimate, (100.0 * iv.lo, 100.0 * iv.hi)))
        (dx, x_iv), (dy, y_iv) = intervals
        effects.append(PairedEffect(item["label"], item.get("block", "contrast"), dx, dy, x_iv, y_iv))
    if not effects:
        raise InputError(ctx.path / "report.json", f"figure {spec['id']!r}: no effects")
    return delta_plane_svg(effects, title=spec.get("title", f"Paired effects: delta Gold Hit@{k} vs delta n-Clue Score@{k}"),
                           figure_id=spec["id"])


FIGURE_BUILDERS = {"landscape": landscape_figure, "delta_plane": delta_plane_figure}


def build_figures(ctx: ReleaseContext) -> List[Tuple[Mapping[str, Any], str]]:
    """(spec, SVG text) for every figure declared in ``report.json``."""
    out = []
    for number, spec in enumerate(ctx.spec.get("figures", []), start=1):
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str) or spec.get("kind") not in FIGURE_BUILDERS:
            raise InputError(ctx.path / "report.json",
                             f"figure {number}: needs an 'id' and a 'kind' among {', '.join(sorted(FIGURE_BUILDERS))}")
        out.append((spec, FIGURE_BUILDERS[spec["kind"]](spec, ctx)))
    return out


def report_markdown(ctx: ReleaseContext, tables: Sequence[Table],
                    figures: Sequence[Tuple[Mapping[str, Any], str]]) -> str:
    """REPORT.md: title, introduction, findings in words, every table, every figure."""
    spec = ctx.spec
    lines = [f"# {spec.get('title', 'Release report: ' + ctx.path.name)}", ""]
    lines += [f"Regenerated by `python reproduce.py` from the files of `data/{ctx.path.name}/`: "
              f"{len(ctx.release.queries)} queries, {len(ctx.release.corpus)} documents, "
              f"{len(ctx.index)} frozen runs; k = {ctx.k}; ties: stable input order. "
              "Every number below is a claim in the release's `claims.json`.", ""]
    for paragraph in spec.get("intro", []):
        lines += [paragraph, ""]
    kinds = {t.get("id"): t.get("kind") for t in spec.get("tables", [])}
    for table in tables:
        if kinds.get(table.table_id) == "findings":
            counts = summary_counts(table)
            lines += ["## Which of the paper's directional findings replicate here", "",
                      "; ".join(f"{n} {text}" for text, n in counts.items()) + ".", ""]
            lines += findings_sentences(table) + [""]
    for spec_fig, _ in figures:
        lines += [f"![{spec_fig.get('caption', spec_fig['id'])}](figures/{spec_fig['id']}.svg)", ""]
    lines += ["## Tables", ""]
    for table in tables:
        lines += [table_markdown(table)]
    return "\n".join(lines).rstrip("\n") + "\n"


def report_html(ctx: ReleaseContext, markdown: str, figures: Sequence[Tuple[Mapping[str, Any], str]]) -> str:
    title = ctx.spec.get("title", "Release report: " + ctx.path.name)
    return render_report_html(title, markdown, {spec["id"]: svg for spec, svg in figures})


def figure_files(figures: Sequence[Tuple[Mapping[str, Any], str]]) -> Dict[str, str]:
    return {f"figures/{spec['id']}.svg": svg for spec, svg in figures}
