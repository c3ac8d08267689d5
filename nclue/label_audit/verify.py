"""Re-check every repair a release ships (the hook ``reproduce.py`` can call).

For each ``data/<release>/repairs/<id>.lineage.json``: the base qrels/evidence the repair was
made on must be the release's (after the repairs it names), the repair file must have its
recorded sha256, applying it must give the recorded result, and every gold of the repaired copy
must pass both page gates (:func:`nclue.label_audit.repair.gold_gate_problems`). The impact
tables of a repair (:func:`nclue.label_audit.impact.impact_tables`) are pure functions of the
release, the repaired copy and the frozen runs, so they can be regenerated and claimed like
every other table.
"""

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..errors import InputError
from ..formats import PathLike
from ..layout import ReleaseLayout
from ..release import Release
from .repair import gold_gate_problems, load_label_version

SUFFIX = ".lineage.json"


def repair_ids(release_dir: PathLike) -> List[str]:
    """Ids of the repairs in ``<release>/repairs/``, sorted."""
    folder = ReleaseLayout.of(release_dir).repairs_dir
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(SUFFIX)] for p in folder.iterdir() if p.name.endswith(SUFFIX))


def check_repairs(release: Release,
                  load: Optional[Callable[[str], Tuple[Release, Dict[str, Any]]]] = None) -> Tuple[int, List[str]]:
    """(repairs checked, problems): one problem line per failing repair. ``load`` gives a
    repair's checked label version (default :func:`load_label_version` of ``release``; a caller
    that already loads label versions for its tables passes its own, so each is loaded once)."""
    problems = []
    ids = repair_ids(release.path)
    for repair_id in ids:
        try:
            repaired, lineage = (load(repair_id) if load is not None
                                 else load_label_version(release, repair_id))
        except InputError as exc:
            problems.append(f"repair {repair_id}: {exc}")
            continue
        page_gates = bool((lineage.get("gates") or {}).get("page_gates", True))
        for problem in gold_gate_problems(repaired, page_gates):
            problems.append(f"repair {repair_id}: {problem}")
    return len(ids), problems
