"""``nclue export topics|collection``: inputs for other engines (see :mod:`nclue.exports`)."""

import sys
from pathlib import Path

from ..exports import (COLLECTION_UNITS, TOPIC_FORMATS, collection_rows, read_release_pages,
                       topic_numbers_tsv, topics_trec, topics_tsv)
from ..formats import write_jsonl_atomic, write_text_atomic
from ..outputs import check_output, check_output_dir
from ..release import FORMS, load_release, release_input_files


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "export", help="export topics or a page collection for another retrieval engine",
        description="Write a release's topics (TSV or TREC) or, after a local page-text rebuild, "
                    "its collection in Pyserini's JsonCollection shape {\"id\", \"contents\"}.")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True
    topics = kinds.add_parser(
        "topics", help="queries as TSV (qid<TAB>text) or TREC topics, in one query form",
        description="TSV: one 'qid<TAB>text' line per query (Anserini -topicReader TsvString). "
                    "TREC: <top> blocks (Anserini -topicReader Trec); <num> is the query's topic "
                    "number (TREC topic numbers are integers: the qid when every qid is one, "
                    "else its 1-based position in qid order), <title> the chosen form, <desc> "
                    "the natural form, <narr> the conditions. numbers: 'number<TAB>qid' lines. "
                    "Score a run made from TREC topics with 'nclue score --topic-numbers'.")
    topics.add_argument("--release", required=True, help="release folder, e.g. data/v1")
    topics.add_argument("--form", choices=FORMS, default="clean",
                        help="query form (default clean, the paper's released form)")
    topics.add_argument("--format", choices=TOPIC_FORMATS, default="tsv",
                        help="tsv (default), trec, or numbers (the topic number of each qid)")
    topics.add_argument("--out", required=True,
                        help="output file (written atomically; '-' for standard output)")
    topics.set_defaults(func=run_topics)
    collection = kinds.add_parser(
        "collection", help="pages and documents as JsonCollection JSON lines (local text rebuild)",
        description="Reads the locally rebuilt page text, checks it against the release's corpus "
                    "(page counts, text_sha256), and writes OUT/pages/pages.jsonl (id "
                    "'<docid>#<page>') and OUT/documents/documents.jsonl (id '<docid>', pages "
                    "joined by a blank line). Each folder is one Pyserini -input. The text is "
                    "third-party: keep it local.")
    collection.add_argument("--release", required=True, help="release folder, e.g. data/v1")
    collection.add_argument("--pages", help="rebuilt page text (default: "
                                            "build/<release name>/pages.jsonl.gz)")
    collection.add_argument("--unit", choices=COLLECTION_UNITS + ("both",), default="both",
                            help="which entries to write (default both, in separate folders)")
    collection.add_argument("--out", required=True, help="output folder")
    collection.set_defaults(func=run_collection)


def run_topics(args) -> int:
    inputs = release_input_files(args.release)
    check_output(args.out, inputs)
    release = load_release(args.release)
    if args.format == "numbers":
        text = topic_numbers_tsv(release)
    else:
        text = (topics_tsv if args.format == "tsv" else topics_trec)(release, args.form)
    write_text_atomic(args.out, text, inputs)
    return 0


def run_collection(args) -> int:
    pages_path = args.pages or str(Path("build") / Path(args.release).name / "pages.jsonl.gz")
    inputs = [pages_path, *release_input_files(args.release)]
    out = check_output_dir(args.out, inputs)
    units = COLLECTION_UNITS if args.unit == "both" else (args.unit,)
    targets = {unit: out / unit / f"{unit}.jsonl" for unit in units}
    for target in targets.values():
        check_output(target, inputs, allow_stdout=False)
    release = load_release(args.release)
    print(f"[export] reading {pages_path}", file=sys.stderr)
    pages = read_release_pages(pages_path, release)
    for unit, target in targets.items():
        write_jsonl_atomic(target, collection_rows(pages, unit), inputs)
        print(f"[export] wrote {target}", file=sys.stderr)
    return 0
