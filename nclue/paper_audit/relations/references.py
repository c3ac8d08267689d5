"""``xref``: a cross-reference to a table, figure or section must name a part the paper has.

"Main-paper Tables 8–9 report page-evidence delivery and construct validity": a reader follows the
reference, so the part must exist. The transcription lists the numbered parts the paper has
(``parts``: each reference with the seed text that shows it, a caption or a heading; the tests
re-read every anchor from the seed), and an ``xref`` relation lists the references one sentence
makes (``context``: the sentence fragment, re-read from the seed too). A reference that names a
family (``"Supplementary Table S5"`` for Tables S5a and S5b) resolves through ``as``:

```json
{"id": "xref.s5_family", "kind": "xref", "context": "Supplementary Table S5 gives the full masking rows",
 "refs": [{"ref": "Table S5", "as": ["Table S5a", "Table S5b"]}]}
```

A structural fact has no rounding: EXACT when every reference resolves, FAIL otherwise (the detail
names what is missing). Whether the seed text lost a part the printed paper has (a figure whose
image was dropped) is an interpretation: such a relation carries a ``reading`` and is REVIEW.
"""

from typing import Any, List, Mapping, Tuple

from ..evaluator import EXACT, FAIL, Evaluator
from .base import Context, Result


def _refs(rel: Mapping[str, Any], ctx: Context) -> List[Tuple[str, List[str]]]:
    raw = rel.get("refs")
    if not isinstance(raw, list) or not raw:
        raise ctx.error(rel, "refs must list the references the sentence makes")
    out = []
    for index, item in enumerate(raw):
        if isinstance(item, str) and item.strip():
            out.append((item, [item]))
            continue
        if not isinstance(item, dict):
            raise ctx.error(rel, f"refs[{index}] must be a reference or {{\"ref\", \"as\"}}")
        ctx.known(item, ("ref", "as"), rel, f"refs[{index}]")
        ref, members = item.get("ref"), item.get("as")
        if (not isinstance(ref, str) or not ref.strip() or not isinstance(members, list) or not members
                or not all(isinstance(m, str) and m.strip() for m in members)):
            raise ctx.error(rel, f"refs[{index}]: ref must be a reference and as a non-empty list of parts")
        out.append((ref, list(members)))
    return out


def evaluate_xref(rel: Mapping[str, Any], ctx: Context, ev: Evaluator) -> Result:
    context = rel.get("context")
    if not isinstance(context, str) or not context.strip():
        raise ctx.error(rel, "context must be the sentence fragment that makes the references")
    refs = _refs(rel, ctx)
    parts = ctx.tr.parts
    missing = [(ref, [m for m in members if m not in parts]) for ref, members in refs]
    missing = [(ref, gone) for ref, gone in missing if gone]
    verdict = FAIL if missing else EXACT
    resolved = [f"{ref} -> {', '.join(members)}" if members != [ref] else ref for ref, members in refs]
    detail = "resolves: " + "; ".join(resolved)
    if missing:
        detail += "; missing: " + "; ".join(
            ref if gone == [ref] else f"{ref} ({', '.join(gone)})" for ref, gone in missing)
    return Result(inputs=(), verdict=verdict, expected=f"{len(refs)} references exist",
                  got=f"{len(refs) - len(missing)} found", tolerance="0 (structure)",
                  detail=detail, **ctx.base(rel))
