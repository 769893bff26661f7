"""OUTPUT_UNITS_WITHOUT_GRADIENT: some units of the model's output layer get a gradient of
exactly zero on every step read, while the others learn - outputs the loss never reads.

A head built with more outputs than the loss reads has rows that never train: a
question-answering reader whose end logits were its start column read a second time
(``logits[..., 0]`` for both; real-bug batch 131,
https://github.com/PaddlePaddle/PaddleNLP/pull/3539) decoded spans with an untrained end
column, exact match 0.27 against 1.00. The loss falls, no tensor is without a gradient
(NO_GRADIENT reads whole tensors), and nothing errors.

Read from ``run.observed.head_rows`` (monitor/head_rows.py: the output layer's weight,
followed back from the model's output, and which of its rows received a gradient on the
first records). A softmax's classes and a regression's columns always get one, so an
exactly zero row on every record read is an output nothing downstream uses. Judged only
where the model splits that layer's output into several outputs (``MIN_SPLIT_OUTPUTS``):
there every column was cut out to be used, and one left unread is an index that reads a
column twice or a split that drops one. A loss reading some columns of a single output can
mean to (a class-incremental learner's new classes).
"""
from ..findings import Finding
from .context import observed_list, short_list
from .graph import rule

MIN_SPLIT_OUTPUTS = 2    # [design] the model returns this many outputs cut from the layer
                         # (start and end logits, mu and log-variance): a loss that reads
                         # only some columns of a single output may mean to (a class-
                         # incremental learner trains the new classes' columns only)
MIN_HEAD_RECORDS = 3     # [design] records read before a row counts as never trained: the
                         # first step's gradient alone could miss a row by chance (a hinge
                         # satisfied for the whole batch); three exactly-zero rows in a row
                         # cannot be


@rule(produces="OUTPUT_UNITS_WITHOUT_GRADIENT", reads={"NO_GRADIENT"},
      explains={"LOSS_PLATEAU", "PARAMS_NOT_UPDATING"})
def output_units_without_gradient(ctx):
    by_weight = {}
    for step, weight, rows, zero, outputs in observed_list(ctx, "head_rows"):
        if outputs >= MIN_SPLIT_OUTPUTS:
            by_weight.setdefault((weight, rows), []).append(set(zero))
    for (weight, rows), zeros in by_weight.items():
        if len(zeros) < MIN_HEAD_RECORDS:
            continue
        never = sorted(set.intersection(*zeros))
        if not never or len(never) >= rows:
            continue          # every row trains, or none does (NO_GRADIENT's case)
        module = weight.rsplit(".", 1)[0]
        return Finding(
            code="OUTPUT_UNITS_WITHOUT_GRADIENT", severity="warning", where=module,
            step=ctx.first_step,
            message=f"{len(never)} of the {rows} output units of {module} got a gradient of "
                    f"exactly zero on each of {len(zeros)} records (units "
                    f"{short_list([str(i) for i in never])}), while the others learn: the "
                    "loss never reads those outputs. Either an index reads one output column "
                    "where another was meant (end logits taken from the start column), a "
                    "slice drops columns, or the head is wider than the targets.",
            evidence={"weight": weight, "rows": rows, "rows_without_gradient": never,
                      "records": len(zeros)},
            fix="Check which columns of the model's output the loss reads (logits[..., 0] "
                "and logits[..., 1], mu and log_var): each column the model is meant to "
                "predict must reach a loss term; if some are not meant to exist, make the "
                "output layer as wide as the targets.")
    return None
