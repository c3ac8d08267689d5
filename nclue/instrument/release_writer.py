"""Writing a release folder (docs/CONVENTIONS.md) and its construction provenance.

Files in ``data/<release>/``: ``queries.jsonl``, ``qrels.jsonl``, ``corpus.jsonl`` (metadata,
no text), ``evidence.jsonl`` (support pages per condition for every judged pair),
``families.jsonl``, ``slices.jsonl`` (per-query condition count, shortest-gold length, judged
pool size, condition kinds), ``instrument_stats.json`` and, when configured,
``train_queries.jsonl`` / ``val_queries.jsonl`` (conditions and forms only).  A JSONL file whose
text exceeds :data:`GZIP_ABOVE` bytes is written gzip-compressed (deterministic, mtime 0) with
the suffix ``.gz``; the other name is removed so that exactly one copy exists.

``provenance/construction_<release>.json`` records the configuration and seed, the sha256 of the
input files and of every written release file, the rules, the alias table and the vocabulary;
``provenance/conditions_<release>.md`` is the same for readers.  All content is deterministic.
"""

from pathlib import Path
from typing import Any, Dict, List

from ..formats import dumps_canonical, gzip_bytes, jsonl_text, sha256_bytes, write_bytes_atomic, write_json_atomic, write_text_atomic
from . import entities, sections
from .construction import Construction
from .inputs import BuildInput
from .stats import instrument_stats

GZIP_ABOVE = 5_000_000


def query_row(query) -> Dict[str, Any]:
    return {"qid": query.qid, "conditions": list(query.names), "condition_ids": list(query.cids),
            "forms": dict(query.forms)}


def _rows(construction: Construction, inputs: BuildInput) -> Dict[str, List[Any]]:
    kinds = {c.cid: c.kind for c in construction.inventory.conditions}
    qrels = []
    evidence = []
    for row in construction.qrels:
        item = {"qid": row.qid, "docid": row.docid, "clues": row.clues, "label": row.label}
        if row.gate:
            item["gate"] = row.gate
        qrels.append(item)
        evidence.append({"qid": row.qid, "docid": row.docid, "pages": [list(p) for p in row.pages]})
    corpus = []
    for doc in inputs.documents.values():
        item = dict(doc.extra)
        item.update({"docid": doc.docid, "pages": doc.pages, "source": doc.source, "sha256": doc.sha256})
        corpus.append(item)
    pool: Dict[str, int] = {}
    shortest: Dict[str, int] = {}
    for row in construction.qrels:
        pool[row.qid] = pool.get(row.qid, 0) + 1
        if row.label == "gold":
            length = inputs.documents[row.docid].pages
            shortest[row.qid] = min(shortest.get(row.qid, length), length)
    slices = []
    for query in construction.queries:
        mix = sorted({kinds[c] for c in query.cids})
        slices.append({"qid": query.qid, "conditions": len(query.cids),
                       "shortest_gold_pages": shortest.get(query.qid, 0),
                       "judged_pool": pool.get(query.qid, 0),
                       "kinds": "mixed" if len(mix) > 1 else mix[0]})
    families = [{"family": fam, "qids": list(qids), "golds": list(golds)}
                for fam, qids, golds in construction.families]
    files = {
        "queries.jsonl": [query_row(q) for q in construction.queries],
        "qrels.jsonl": qrels,
        "corpus.jsonl": corpus,
        "evidence.jsonl": evidence,
        "families.jsonl": families,
        "slices.jsonl": slices,
    }
    for name, queries in sorted(construction.extra.items()):
        if queries:
            files[f"{name}_queries.jsonl"] = [query_row(q) for q in queries]
    return files


def render_release(construction: Construction, inputs: BuildInput) -> Dict[str, bytes]:
    """File name -> exact bytes of every release file (deterministic)."""
    out: Dict[str, bytes] = {}
    for name, rows in _rows(construction, inputs).items():
        data = jsonl_text(rows).encode("utf-8")
        if len(data) > GZIP_ABOVE:
            out[name + ".gz"] = gzip_bytes(data)
        else:
            out[name] = data
    stats = instrument_stats(construction, inputs)
    out["instrument_stats.json"] = (dumps_canonical(stats, indent=2) + "\n").encode("utf-8")
    return out


RULES = {
    "section": ("A section condition holds on the page of every outline heading (on a page whose flags "
                "are not in excluded_page_flags) whose title "
                "normalizes (NFKC, whitespace collapsed, leading enumerators such as '2.3', 'A.1', "
                "'IV.', 'Chapter 3' removed, case folded, '&' read as 'and', non-alphanumerics "
                "replaced by spaces) to an alias of its canonical key; structural titles "
                "(excluded_section_keys) and keys of < 3 characters or > 6 words are not conditions."),
    "entity": ("An entity condition holds on every supporting page (flags not in "
               "excluded_page_flags) where the term occurs case-sensitively as a whole word (the "
               "neighbouring characters are not letters, digits or underscore). Candidate terms: "
               "ASCII alphanumeric, 3-30 characters, starting with a letter, mixed case with an "
               "upper-case letter after the first character, or an acronym of >= 2 capitals that is "
               "not a Roman numeral; an acronym whose capitalized form has df >= capitalized_ratio "
               "x its df is an English word in capitals; author names and reviewed non-technical "
               "words are excluded (entity_exclude)."),
    "selection": ("Conditions of each kind with min_df <= df <= max_df_fraction x documents, most "
                  "frequent first, up to max_section_conditions / max_entity_terms; then, by "
                  "descending df, a condition whose document set has Jaccard >= max_jaccard with a "
                  "kept condition's is dropped as redundant."),
    "conjunction": ("Candidates: 2 or 3 conditions with distinct display names, held together by 1 to "
                    "max_holders documents of which at least one is gold. Seeded shuffle, greedy "
                    "acceptance (pairs first) under max_gold_per_doc and max_queries_per_condition."),
    "judgment": ("Every document holding >= 1 condition is judged with its clue count. Gold: all page "
                 "sets nonempty, empty all-condition intersection, distinct-page assignment (Hall). An "
                 "all-condition document failing a gate is a subset with gate single_page (checked "
                 "first) or distinct_page. page_gates=false (document-level): all-condition = gold."),
    "extra_splits": ("val then train from unused candidates; a candidate is skipped when one of its "
                     "condition pairs occurs in a query of another split (test included)."),
}


def provenance_record(construction: Construction, inputs: BuildInput,
                      files: Dict[str, bytes]) -> Dict[str, Any]:
    config = construction.config
    return {
        "release": config.release,
        "config": config.as_dict(),
        "seed": config.seed,
        "input_files_sha256": dict(sorted(inputs.file_sha256.items())),
        "input_documents": len(inputs.documents),
        "skipped_outline_items": inputs.skipped_outline_items,
        "rules": RULES,
        "section_aliases": dict(sorted(sections.ALIASES.items())),
        "section_display_names": dict(sorted(sections.DISPLAY.items())),
        "excluded_section_keys": sorted(sections.EXCLUDED),
        "section_max_words": sections.MAX_WORDS,
        "section_enumerator_patterns": [p.pattern for p in sections.ENUMERATORS],
        "entity_token_pattern": entities.WORD_RUN.pattern,
        "vocabulary": construction.inventory.record,
        "conditions": [dict({"id": c.cid, "kind": c.kind, "name": c.name, "df": c.df},
                            **({"variants": list(c.variants)} if c.kind == "entity" else {}))
                       for c in construction.inventory.conditions],
        "release_files_sha256": {name: sha256_bytes(data) for name, data in sorted(files.items())},
    }


def conditions_markdown(record: Dict[str, Any]) -> str:
    config = record["config"]
    lines = [f"# Conditions of release {record['release']} (generated by `nclue build`)", "",
             "Rules (also in construction_%s.json):" % record["release"], ""]
    for name, text in record["rules"].items():
        lines.append(f"- **{name}**: {text}")
    lines += ["", f"Seed {record['seed']}; min_df {config['min_df']}, max_df_fraction "
              f"{config['max_df_fraction']}, max_holders {config['max_holders']}, max_gold_per_doc "
              f"{config['max_gold_per_doc']}, max_queries_per_condition "
              f"{config['max_queries_per_condition']}, page_gates {config['page_gates']}.", "",
              "## Section alias table", "", "| alias key | canonical key |", "|---|---|"]
    lines += [f"| {a} | {c} |" for a, c in record["section_aliases"].items()]
    lines += ["", "Excluded structural keys: " + ", ".join(record["excluded_section_keys"]), "",
              "## Conditions", "", "| id | kind | shown as | df | matched spellings |", "|---|---|---|---|---|"]
    lines += [f"| `{c['id']}` | {c['kind']} | {c['name']} | {c['df']} | {', '.join(c.get('variants', []))} |"
              for c in record["conditions"]]
    redundant = record["vocabulary"].get("redundant_conditions", {})
    if redundant:
        lines += ["", "## Conditions dropped as redundant (same documents as a kept condition)", "",
                  "| id | reason |", "|---|---|"]
        lines += [f"| `{c}` | {r} |" for c, r in redundant.items()]
    rejected = record["vocabulary"].get("entities_rejected", {})
    if rejected:
        lines += ["", "## Entity candidates in the df range that were rejected", "",
                  "| term | reason |", "|---|---|"]
        lines += [f"| {t} | {r} |" for t, r in rejected.items()]
    return "\n".join(lines) + "\n"


def write_release(construction: Construction, inputs: BuildInput, out_dir, provenance_dir) -> Dict[str, bytes]:
    """Write the release and its provenance; returns the release files' bytes."""
    files = render_release(construction, inputs)
    out = Path(out_dir)
    for name, data in sorted(files.items()):
        write_bytes_atomic(out / name, data)
        other = out / (name[:-3] if name.endswith(".gz") else name + ".gz")
        if other.exists():
            other.unlink()
    record = provenance_record(construction, inputs, files)
    prov = Path(provenance_dir)
    release = construction.config.release
    write_json_atomic(prov / f"construction_{release}.json", record)
    write_text_atomic(prov / f"conditions_{release}.md", conditions_markdown(record))
    return files
