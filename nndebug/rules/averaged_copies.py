"""EMA_UPDATES_ROUNDED_AWAY and AVERAGED_COPY_BUFFERS_STALE: a copy of the watched model kept
beside it (an exponential moving average of its weights, an SWA average: the model that is
validated and saved) stopped following the weights it averages
(``run.observed.averaged_copies``, ``monitor/averaged_copies.py``).

EMA_UPDATES_ROUNDED_AWAY: the copy is kept in 16 bits while the model trains in 32, it was
written during the run (some of its values changed: an average, not a frozen reference),
yet far fewer of its values changed than of the model's, and it is no cast of the model
(most values differ from the model's rounded to 16 bits). An in-place EMA update of weight
``(1 - decay)`` near 0.001 is below half a bfloat16 step (2**-8 relative) for most values
and rounds back: "Use float32 for EMA model",
https://github.com/d8ahazard/sd_dreambooth_extension/pull/1415 (almost all updates "get
rounded down to 0"). A float32 EMA changes in every value the model changes (measured: 543
of 586 values against the model's 527, digits MLP, decay 0.998); the bfloat16 one in 347.

AVERAGED_COPY_BUFFERS_STALE: the copy's parameters moved during the run (it averages the
model's) but a floating-point buffer of it (batch-norm statistics, a running input scale)
never changed while the model's counterpart did and now differs: the averaged weights run
with statistics of the moment they were copied. "Buffers in AveragedModel are not
synchronized with the source model when use_buffers=False",
https://github.com/pytorch/pytorch/issues/84053; an EMA over ``model.parameters()``
(YU1ut/MixMatch-pytorch#16). A frozen reference copy (its parameters never change) and an
average that copies or averages the buffers (timm's ModelEma over the state_dict, PyTorch's
AveragedModel since the fix) stay silent.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SIXTEEN_BIT = ("bfloat16", "float16")
WIDE_FLOATS = ("float32", "float64")
ROUNDED_SHARE = 0.85     # [measured] the copy changed in at most this share of the values the
                         # model changed. bfloat16 EMA at decay 0.998 (digits MLP, seeds
                         # shifted 0/1000/2000): 0.66/0.76/0.74; its float32 twin 1.03/1.01/
                         # 1.04; a float16 CNN EMA at 0.9999 0.30, at 0.999 0.90 (most float16
                         # updates survive: silent). Set between the groups (bug at most 0.76,
                         # the milder float16 case 0.90). A copy cast from the model
                         # each epoch changes where the model does (about 1.0)
CAST_SHARE = 0.5         # [design] a copy equal to the model's values rounded to 16 bits in at
                         # least half of them is a cast of the model, not an average
MOVED_SHARE = 0.1        # [design] the copy's parameters changed in at least this share of the
                         # compared values: it is written during the run (a frozen reference
                         # changes in none)


def _rounded_rows(ctx):
    rows = []
    for local, copy_dtype, model_dtype, values, changed, model_changed, equal, *_ in \
            observed_list(ctx, "averaged_copies"):
        if copy_dtype in SIXTEEN_BIT and model_dtype in WIDE_FLOATS and changed > 0 and \
                model_changed > 0 and changed <= ROUNDED_SHARE * model_changed and \
                equal < CAST_SHARE * values:
            rows.append((local, copy_dtype, values, changed, model_changed))
    return rows


@rule(produces="EMA_UPDATES_ROUNDED_AWAY")
def ema_updates_rounded_away(ctx):
    rows = _rounded_rows(ctx)
    if not rows:
        return None
    local, dtype, values, changed, model_changed = rows[0]
    return Finding(
        code="EMA_UPDATES_ROUNDED_AWAY", severity="warning", where=local, step=None,
        message=f"'{local}', a copy of the model kept in {dtype} and written during the run "
                f"(an average of its weights), changed in {changed} of {values} values "
                f"compared while the model's float32 weights changed in {model_changed}. "
                f"An in-place update of (1 - decay) * (w - ema) smaller than half a {dtype} "
                "step rounds back to the old value: most of the average never follows the "
                "weights, and the model that is validated and saved stays near where it "
                "started.",
        evidence={"copies": [r[0] for r in rows], "dtype": dtype, "values": values,
                  "copy_changed": changed, "model_changed": model_changed},
        fix="Keep the EMA copy (or at least its master weights) in float32 and cast only "
            "for inference; or update it in float32 and copy the result into the 16-bit "
            "copy.")


@rule(produces="AVERAGED_COPY_BUFFERS_STALE")
def averaged_copy_buffers_stale(ctx):
    rows = [r for r in observed_list(ctx, "averaged_copies")
            if r[8] > 0 and r[3] > 0 and r[4] >= MOVED_SHARE * r[3]]
    if not rows:
        return None
    local, _, _, _, _, _, _, buffers, stale = rows[0]
    return Finding(
        code="AVERAGED_COPY_BUFFERS_STALE", severity="warning", where=local, step=None,
        message=f"'{local}', a copy of the model whose weights moved during the run (an "
                f"EMA or SWA average), kept {stale} of its {buffers} floating-point buffer(s) "
                "exactly as they were when watch started, while the model's own buffers "
                "moved on and now differ (batch-norm statistics, a running input scale). "
                "The averaged weights run with statistics that were never measured for "
                "them: the model that is validated and saved does worse than it should.",
        evidence={"copies": [r[0] for r in rows], "buffers": buffers, "stale": stale},
        fix="Average or copy the buffers too: iterate over state_dict() in the EMA update, "
            "AveragedModel(..., use_buffers=True), or copy model.buffers() at each update; "
            "for SWA run torch.optim.swa_utils.update_bn on the training data before "
            "evaluating.")
