"""The unrounded JSON form of a release's tables (``reference_metrics/<release>/tables.json``)."""

import math
from typing import Any, Dict, Sequence

from ..table import Table


def tables_json(release_name: str, tables: Sequence[Table]) -> Dict[str, Any]:
    """Every table with its columns and unrounded finite cells."""
    out: Dict[str, Any] = {"release": release_name, "tables": []}
    for table in tables:
        out["tables"].append({
            "id": table.table_id, "title": table.title,
            "columns": [{"key": c.key, "header": c.header} for c in table.columns],
            "rows": [{"row": key, "label": label,
                      "cells": {k: v for k, v in values.items() if v is not None and math.isfinite(v)}}
                     for key, label, values in table.rows],
        })
    return out
