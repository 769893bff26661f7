"""Categories as the model reads them (real-bug batch 63, embeddings and categorical inputs).

CATEGORY_CODES_AS_ONE_NUMBER: an input column of a few evenly spaced codes (a weekday 1-5
min-max scaled to 0, 0.25, ..., 1) that the regression target follows in no order: the
codes' target means hold a real share of the target's variance, and most of it is not on
a straight line through the codes. A network reads one number as a quantity, so each day's
own level needs a kink of its own; one indicator column per code (or an embedding) gives it
directly (datascience.stackexchange.com/questions/3811). An ordinal column whose effect is
monotone (ratings, rooms) is on the line and not reported; one-hot columns are 2-valued.

CATEGORICAL_FIELDS_SHARE_ROWS: an embedding looked up with a (rows, fields) table of ids
whose fields' ranges climb field by field (the offsets of one shared table), where
neighbouring fields' ranges touch on one id: offsets summed from each field's largest id,
one short of its number of values (Prayforhanluo/CTR_Algorithm#2). Correct offsets leave
each field's range apart from the next one's; a shared vocabulary (tokens, items) overlaps
across the whole range. Touching on one row is only what an off-by-one makes.

EMBEDDING_ROWS_MISALIGNED_WITH_IDS: a frozen embedding whose rows predict the targets far
better when the ids are shifted by a few rows than as they are: pretrained vectors written
at a word's rank while the ids carry the rank plus the reserved ids (padding, start,
<unk>; fchollet/deep-learning-with-python-notebooks#145). An aligned table is best at
shift 0: a shifted id reads another word's vector.

Read from ``run.observed.category_code_columns``, ``embedding_field_ranges`` and
``frozen_table_probes`` (``monitor/categorical_inputs.py``).
"""
from ..findings import Finding
from .context import fmt, short_list
from .curve import learning_poor
from .graph import rule

MIN_BETWEEN_SHARE = 0.15   # [design] share of the target's variance the codes' means hold:
                           # the column matters (the report's weekday held half of it here)
MIN_UNORDERED_SHARE = 0.5  # [design] share of that the best straight line leaves: most of
                           # the codes' effect is in no order (0.86 for the report's week)
UNFITTED_SHARE = 0.5       # [design] with a squared-error loss, the loss at the end must
                           # still be at least this share of the unordered variance: a model
                           # that has carved out each code's level is not reported
SQUARED_LOSSES = {"MSELoss", "mse_loss"}
MIN_TOUCHING = 2           # [design] touching boundaries needed (and half of them): one
                           # field pair could meet by chance of which values were drawn
SHIFT_MARGIN = 0.3         # [design] held-out probe accuracy a shifted lookup must gain over
                           # the ids as they are (and over always saying the commonest
                           # class): 0.49 on the report's table, 0 on aligned ones


@rule(produces="CATEGORY_CODES_AS_ONE_NUMBER", explains={"LOSS_PLATEAU"})
def category_codes_as_one_number(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "category_code_columns", None) or [])
    strong = [r for r in rows if r[5] >= MIN_BETWEEN_SHARE and r[6] >= MIN_UNORDERED_SHARE]
    if not strong:
        return None
    calls = list(getattr(observed, "loss_calls", None) or [])
    squared = bool(calls) and all(c.loss in SQUARED_LOSSES for c in calls)
    summary = ctx.summary
    column, codes, count, low, high, between, unordered, variance = \
        max(strong, key=lambda r: r[5] * r[6])
    unfitted = between * unordered * variance
    if squared:
        if summary is None or summary["tail"] < UNFITTED_SHARE * unfitted:
            return None
    elif not learning_poor(ctx):
        return None
    return Finding(
        code="CATEGORY_CODES_AS_ONE_NUMBER", severity="warning", where=f"input column {column}",
        step=0,
        message=f"Input column {column} holds {codes} evenly spaced codes ({fmt(low)} to "
                f"{fmt(high)}, every code in use) and the target follows them in no order: "
                f"the codes' target means hold {fmt(100 * between)}% of the target's variance, "
                f"and {fmt(100 * unordered)}% of that is off any straight line through the "
                "codes. A category (a weekday, a store, a month) fed as one number is read as "
                "a quantity: the network must bend its output at every code to give each its "
                "own level" + (f", and the loss is still {fmt(summary['tail'])}." if squared
                               else ", and the loss is not improving well."),
        evidence={"column": column, "codes": codes, "rows": count, "lowest": low,
                  "highest": high, "between_share": between, "unordered_share": unordered,
                  "target_variance": variance,
                  "thresholds": {"between": MIN_BETWEEN_SHARE, "unordered": MIN_UNORDERED_SHARE}},
        fix="Encode the column as a category: one indicator column per code (one-hot) or an "
            "nn.Embedding over the code ids, instead of one scaled number.")


@rule(produces="CATEGORICAL_FIELDS_SHARE_ROWS")
def categorical_fields_share_rows(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "embedding_field_ranges", None) or [])
    hits = [r for r in rows if r[4] >= max(MIN_TOUCHING, r[3] / 2) and r[5] == 0]
    if not hits:
        return None
    layer, fields, count, boundaries, touching, _, shared = hits[0]
    pairs = [f"field {f - 1}/{f} on id {i}" for f, i in shared]
    return Finding(
        code="CATEGORICAL_FIELDS_SHARE_ROWS", severity="warning",
        where=", ".join(r[0] for r in hits), step=0,
        message=f"{layer} is looked up with {fields} categorical fields side by side (ids of "
                f"shape (rows, {fields}), each field in a range of its own after the one "
                f"before), but {touching} of the {boundaries} neighbouring ranges meet on one "
                f"id ({short_list(pairs, 3)}): a field's first value and the previous "
                "field's last value read the same row. Offsets summed from each field's "
                "largest id, one short of its number of values, do this.",
        evidence={"layers": [r[0] for r in hits], "fields": fields, "rows": count,
                  "boundaries": boundaries, "touching": touching, "shared": shared},
        fix="Make the offsets the running sum of each field's NUMBER of values (its largest "
            "id + 1 when ids start at 0), and size the table as their total.")


@rule(produces="EMBEDDING_ROWS_MISALIGNED_WITH_IDS", explains={"LOSS_PLATEAU"})
def embedding_rows_misaligned_with_ids(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "frozen_table_probes", None) or [])
    hits = [r for r in rows if r[4] != 0 and r[5] >= r[3] + SHIFT_MARGIN and
            r[5] >= r[7] + SHIFT_MARGIN]
    if not hits:
        return None
    layer, samples, classes, at_zero, shift, shifted, _, majority = hits[0]
    return Finding(
        code="EMBEDDING_ROWS_MISALIGNED_WITH_IDS", severity="warning", where=layer, step=0,
        message=f"{layer} is a frozen table whose rows tell the targets apart far better "
                f"when every id is moved by {shift:+d}: a probe on the looked-up rows is "
                f"right {fmt(100 * at_zero)}% of the time with the ids as given and "
                f"{fmt(100 * shifted)}% with ids {shift:+d} ({samples} held-out samples, "
                f"{classes} classes, commonest class {fmt(100 * majority)}%). The vectors "
                f"were written {abs(shift)} row(s) away from the ids that name their words: "
                "each id reads another word's vector, and the table never learns otherwise.",
        evidence={"layer": layer, "samples": samples, "classes": classes,
                  "accuracy_as_given": at_zero, "shift": shift, "accuracy_shifted": shifted,
                  "majority": majority, "margin": SHIFT_MARGIN},
        fix="Write each pretrained vector at the id the inputs use for its word (e.g. "
            f"matrix[index + {-shift}] when the ids start after {-shift} reserved ones), or "
            "build the matrix from the same vocabulary object that encodes the inputs.")
