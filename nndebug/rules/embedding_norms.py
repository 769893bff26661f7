"""EMBEDDINGS_NORMALIZED_OVER_BATCH: a batch of embeddings divided by one norm taken over the
whole batch, where each row was to be scaled to unit length on its own.

``z / z.norm()``, ``z / torch.linalg.norm(z)`` or TensorFlow's ``l2_normalize(z)`` without
an axis divides the whole (N, D) batch by its Frobenius norm: every row comes out about
1/sqrt(N) long, so "cosine similarities" are N times too small, temperature-scaled
contrastive logits sit near zero and the softmax over the batch stays near uniform (the
loss near log of the batch size), while cosine-based distances lose their scale.
tensorflow/similarity#237: SimCLR's ``l2_normalize(za)`` without ``axis=-1``, the loss
"stuck at an unreasonably high level even with 1 batch of data".

Reads ``run.observed.whole_batch_norms`` (``monitor/whole_batch_norms.py``): the divisions
of a batch of rows by the whole-tensor norm of that very tensor, found in the loss's graph
on the first recorded steps (Gram matrices and weights divided by their own norm are left
out there).
"""
from ..findings import Finding
from .graph import rule

BATCH_NORM_MIN_STEPS = 2      # [design] walked steps showing the division: the loop's habit,
                              # not a one-off (the monitor walks the first three)


@rule(produces="EMBEDDINGS_NORMALIZED_OVER_BATCH",
      explains={"LOSS_AT_CHANCE", "LOSS_PLATEAU"})
def embeddings_normalized_over_batch(ctx):
    observed = getattr(ctx.run, "observed", None)
    found = list(getattr(observed, "whole_batch_norms", None) or [])
    steps = sorted({int(step) for step, _ in found})
    if len(steps) < BATCH_NORM_MIN_STEPS:
        return None
    shape = list(found[0][1])
    rows = shape[0]
    return Finding(
        code="EMBEDDINGS_NORMALIZED_OVER_BATCH", severity="warning", step=steps[0],
        message=f"A ({', '.join(str(n) for n in shape)}) batch is divided by ONE norm taken "
                f"over all of it (z / z.norm(), linalg.norm(z) or l2_normalize without an "
                f"axis), on steps {steps[:5]}: each of its {rows} rows comes out about "
                f"1/sqrt({rows}) long instead of unit length. Cosine similarities built from "
                f"them are about {rows} times too small, and a temperature-scaled "
                "contrastive softmax over the batch stays near uniform, so the loss sits "
                "near its chance value while the encoder learns little.",
        evidence={"steps": steps[:10], "shape": shape, "divisions": len(found),
                  "threshold_steps": BATCH_NORM_MIN_STEPS},
        fix="Normalise each row on its own: F.normalize(z, dim=1) (or z / z.norm(dim=-1, "
            "keepdim=True)); in TensorFlow, tf.math.l2_normalize(z, axis=-1).")
