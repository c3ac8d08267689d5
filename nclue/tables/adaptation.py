"""Kind ``adaptation``: the Multi³IR Table 5 analogue, steering methods and injection layers.

Each row is a method trained with SPIN's objective at one injection point (Multi³IR sec. 6.2),
with its trainable parameters and HC@k. The parameter count is never typed in: each row names
the provenance record of its trained weights (``provenance/spin/<cell>.json``,
``provenance/spin/adapt/<cell>.json``), whose weight file is read by :mod:`nclue.weights`: its
sha256 is checked against the record (and the record against the run's own entry in
``runs/index.json``), and the count is the number of elements of its arrays, from their
``.npy`` headers. Where the producer kept the weights out of the repository (recorded as
``"<path> (not committed)"``), "# Params" is empty and the count the record states is printed
in a column of its own, "# Params (recorded)", named as such in the note; once the weights are
committed and the record names them, the count is computed from them and that column goes.
When a table has such rows, every row is also recounted in closed form
(:func:`closed_form_parameters`: the method, its rank, m, the injected layers and the encoder's
hidden and feed-forward sizes): the closed form must equal the counted weights of each committed
row (so the formula is checked on real arrays) and the recorded count of each uncommitted one (so
the record is checked), or the table is refused with one line.
"""

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..context import ReleaseContext
from ..errors import InputError
from ..formats import read_json
from ..measures import Measure, MeasureRegistry
from ..table import Column, Table
from ..weights import WeightsRecord, checked_parameter_count, load_weights_record
from .label_audit import repository_file
from .multi3ir import PerQuery, context_vectors, mean_points, table_failure, vector_of
from .spec import SpecKind, setting, spec_title

#: the run index configuration fields that record a run's weights digest
DIGEST_FIELDS = ("vectors_sha256", "weights_sha256")


@dataclass(frozen=True)
class AdaptationRow:
    key: str = setting("text", "row key (its claims are keyed by it)")
    label: str = setting("text", "printed method label")
    layer: str = setting("text", "injection point, printed after the label (e.g. L3, L0-6)")
    run: str = setting("run", "the method's run")
    weights: str = setting("text", "provenance record of the trained weights (JSON, relative to "
                                   "the repository)")
    method: Optional[str] = setting("text", "`spin`, `prefix`, `lora` or `adapter`: names the "
                                            "closed form that recounts the parameters", None)
    rank: Optional[int] = setting("count", "prefix length k, LoRA rank r or adapter bottleneck r "
                                           "(the closed form's size; none for SPIN)", None)


@dataclass(frozen=True)
class AdaptationSpec:
    id: str = setting("text", "table id")
    kind: str = setting("text", "`adaptation`")
    title: Optional[str] = setting("text", "printed title", None)
    rows: Tuple[AdaptationRow, ...] = setting(AdaptationRow, "the methods, one row each")
    ks: Tuple[int, ...] = setting("ks", "cutoffs of HC@k", [10, 100])
    hidden: Optional[int] = setting("count", "the encoder's hidden size (all-MiniLM-L6-v2: 384, its "
                                             "config.json), for the closed-form recount", None)
    ffn: Optional[int] = setting("count", "the encoder's feed-forward size (all-MiniLM-L6-v2: 1536, "
                                          "its config.json), for the closed-form recount", None)


METHODS = ("spin", "prefix", "lora", "adapter")


def closed_form_parameters(method: str, m: int, upper_layers: int, rank: Optional[int],
                           hidden: int, ffn: int) -> int:
    """Trainable parameters of one steering method (Multi³IR sec. 6.2, Table 5), in closed form.

    SPIN: m steering vectors of the hidden size. Prefix-tuning: m prefixes of k vectors. LoRA
    (rank r) on every linear map of each injected layer: the four attention projections
    (hidden -> hidden) and the feed-forward pair (hidden -> ffn, ffn -> hidden), r * (in + out)
    each, once per query embedding. Bottleneck adapter (r): a down and an up projection
    (2 * r * hidden, no biases) per injected layer and query embedding."""
    if method == "spin":
        return m * hidden
    if rank is None:
        raise ValueError(f"method {method!r} needs a rank")
    if method == "prefix":
        return m * rank * hidden
    if method == "lora":
        return m * upper_layers * (4 * rank * 2 * hidden + 2 * rank * (hidden + ffn))
    if method == "adapter":
        return m * upper_layers * 2 * rank * hidden
    raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")


@dataclass(frozen=True)
class ParameterCount:
    """A row's parameters: ``counted`` from the committed weights, else the ``recorded`` one."""

    counted: Optional[int]
    recorded: Optional[int]
    record: str


def parameter_count_of(record: WeightsRecord, root, record_name: str) -> ParameterCount:
    """The row's count: computed from the committed weights (checked against the record), or,
    when they are not committed, the count the record states."""
    counted = checked_parameter_count(record, root)
    return ParameterCount(counted, record.recorded_parameters if counted is None else None,
                          record_name)


def adaptation_table(table_id: str, title: str, rows: Sequence[AdaptationRow], per_query: PerQuery,
                     counts: Mapping[str, ParameterCount], hc: Sequence[Measure],
                     registry: MeasureRegistry) -> Table:
    """Table 5 analogue: trainable parameters and HC@k of each steering method and layer.

    ``counts[row.key]`` is the row's :class:`ParameterCount`. Column ``parameters`` ("# Params",
    0 decimals) holds the counts computed from weight files; column ``recorded_parameters``
    ("# Params (recorded)") is present only when some row's weights are not committed, and holds
    those rows' recorded counts.
    """
    uncounted = [r for r in rows if counts[r.key].counted is None]
    columns = [Column("parameters", "# Params", 0)]
    if uncounted:
        columns.append(Column("recorded_parameters", "# Params (recorded)", 0))
    columns += [Column(m.name, registry.header(m), 1) for m in hc]
    out = []
    labels: Dict[str, str] = {}
    for row in rows:
        count = counts[row.key]
        cells: Dict[str, Optional[float]] = {
            "parameters": None if count.counted is None else float(count.counted)}
        if uncounted:
            cells["recorded_parameters"] = None if count.recorded is None else float(count.recorded)
        for measure in hc:
            cells[measure.name] = mean_points(vector_of(per_query, row.run, measure))
        labels[row.key] = f"{row.label} ({row.layer})" if row.layer else row.label
        out.append((row.key, labels[row.key], cells))
    note = ("Every method produces m = 5 query embeddings (round robin) and is trained with "
            "SPIN's noisy-OR objective on the same batches; parameters are the trainable ones "
            "(the encoder stays frozen). HC@k in percentage points. # Params: the elements of "
            "the trained arrays, read from the .npy headers of the committed weight files, whose "
            "sha256 is checked against the one their provenance record gives.")
    if uncounted:
        note += (" Weights not committed, so not counted here: "
                 + "; ".join(f"{labels[r.key]} ({counts[r.key].record})" for r in uncounted)
                 + "; for these, # Params (recorded) is the count their provenance record "
                   "states, recomputed here in closed form from the method, its rank, m and the "
                   "injected layers (the same closed form reproduces the counted weights of every "
                   "committed row).")
    return Table(table_id, title, tuple(columns), tuple(out), note)


def _checked_record(ctx: ReleaseContext, table_id: str, row: AdaptationRow) -> WeightsRecord:
    """The row's provenance record, checked to describe the weights of the row's run."""
    record = load_weights_record(repository_file(ctx, row.weights))
    configuration = ctx.entry(row.run).info.get("configuration") or {}
    digests = {configuration[f] for f in DIGEST_FIELDS if isinstance(configuration.get(f), str)}
    if not digests:
        raise InputError(ctx.layout.report_spec, f"table {table_id!r}: run {row.run!r} records no "
                                                 "weights sha256 in its configuration")
    if record.sha256 not in digests:
        raise InputError(ctx.layout.report_spec, f"table {table_id!r}: row {row.key!r}: "
                                                 f"{row.weights} describes other weights than run "
                                                 f"{row.run!r} records")
    return record


def _closed_form_checked(ctx: ReleaseContext, spec: AdaptationSpec,
                         counts: Mapping[str, ParameterCount]) -> None:
    """Recount every row in closed form and compare: with the counted weights of a committed
    row (which checks the formula on real arrays), with the recorded count of a row whose
    weights are not committed (which checks the record). A difference is one InputError."""
    where = ctx.layout.report_spec
    if spec.hidden is None or spec.ffn is None:
        raise InputError(where, f"table {spec.id!r}: rows with weights not committed need "
                                "'hidden' and 'ffn' for the closed-form recount")
    for row in spec.rows:
        if row.method is None:
            raise InputError(where, f"table {spec.id!r}: row {row.key!r} needs 'method' for the "
                                    "closed-form recount")
        record = read_json(repository_file(ctx, row.weights))
        m, injected = record.get("m"), record.get("injected_layers", [])
        if not isinstance(m, int) or not isinstance(injected, list):
            raise InputError(repository_file(ctx, row.weights), "needs an integer 'm' (and a list "
                                                                "'injected_layers') for the closed-form recount")
        try:
            closed = closed_form_parameters(row.method, m, len(injected), row.rank, spec.hidden, spec.ffn)
        except ValueError as exc:
            raise InputError(where, f"table {spec.id!r}: row {row.key!r}: {exc}") from None
        count = counts[row.key]
        actual = count.counted if count.counted is not None else count.recorded
        if actual is not None and actual != closed:
            what = "the committed weights hold" if count.counted is not None else "its record states"
            raise InputError(where, f"table {spec.id!r}: row {row.key!r}: the closed form of "
                                    f"{row.method!r} gives {closed} parameters, {what} {actual}")


def build(spec: AdaptationSpec, ctx: ReleaseContext) -> Table:
    hc = [ctx.registry.measure("hc", k) for k in spec.ks]
    root = repository_file(ctx, "")
    counts = {row.key: parameter_count_of(_checked_record(ctx, spec.id, row), root, row.weights)
              for row in spec.rows}
    if any(c.counted is None for c in counts.values()):
        _closed_form_checked(ctx, spec, counts)
    runs: List[str] = sorted({row.run for row in spec.rows})
    try:
        return adaptation_table(
            spec.id, spec_title(spec, "Multi3IR Table 5 analogue: steering methods and injection "
                                      "layers"),
            spec.rows, context_vectors(ctx, spec.id, runs, hc), counts, hc, ctx.registry)
    except ValueError as exc:
        raise table_failure(ctx, spec.id, exc) from None


KIND = SpecKind("adaptation", AdaptationSpec, build,
                "Multi³IR Table 5 analogue: steering methods, parameters counted from their "
                "weight files, HC@k.")
