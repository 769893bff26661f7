"""UPDATES_ROUNDED_AWAY: parameters stored in bfloat16 or float16 that receive gradients
but never change: each update is smaller than half a step of the format and rounds back.

Training with the weights themselves in a 16-bit format (``model.to(torch.bfloat16)``,
``model.half()``) and no float32 master copy: the optimizer computes its update and writes
``w - update`` into the 16-bit weight, which rounds it. bfloat16 keeps 8 significant bits,
float16 11: a weight near 1.0 (a layer-norm gain) moves in steps of 2^-7 or 2^-10, and an
Adam update of about the learning rate (1e-3, 1e-4) is lost every time. Public reports:
"Fix numerical issues by holding params in fp32",
https://github.com/vllm-project/speculators/pull/765 ("All models trained with speculators
end up with untrained normalization layers (.weight == 1.0) ... This is happening because
our training is done fully in bf16"); "fix(vlm): use FP32 master weights for Nemotron Omni",
https://github.com/NVIDIA-NeMo/Automodel/pull/3444 ("directly updating BF16-resident
parameters causes many optimizer steps to round back to the same BF16 value").

Reads PARAMS_NOT_UPDATING (the tensors that got gradients and never changed) and
``run.observed.parameter_dtypes`` (``monitor/parameter_dtypes.py``): the cause is named
when some of the stuck tensors are stored in a 16-bit format.
"""
from ..findings import Finding
from .context import short_list
from .graph import rule

# half a step of each format relative to the weight, at its smallest (just below a power of
# two; twice that just above one): updates below it round away (8 and 11 significant bits)
HALF_STEP = {"bfloat16": 2.0 ** -9, "float16": 2.0 ** -12}


@rule(produces="UPDATES_ROUNDED_AWAY", reads={"PARAMS_NOT_UPDATING"},
      explains={"PARAMS_NOT_UPDATING", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def updates_rounded_away(ctx):
    stuck = ctx.found.get("PARAMS_NOT_UPDATING")
    dtypes = getattr(getattr(ctx.run, "observed", None), "parameter_dtypes", None) or {}
    if stuck is None or not dtypes:
        return None
    low = [name for name in stuck.evidence.get("parameters", []) if name in dtypes]
    if not low:
        return None
    formats = sorted({dtypes[name] for name in low})
    half = max(HALF_STEP[f] for f in formats)
    return Finding(
        code="UPDATES_ROUNDED_AWAY", severity="warning", where=stuck.where, step=stuck.step,
        message=f"{len(low)} parameter tensor(s) stored in {' and '.join(formats)} receive "
                f"gradients but never change ({short_list(low)}): the optimizer writes each "
                "update into the 16-bit weight, and an update smaller than half a step of "
                f"the format ({half:.1e} to {2 * half:.1e} of the weight) rounds back to the "
                "old value.",
        evidence={"parameters": low, "formats": formats, "half_step": half,
                  "learning_rates": stuck.evidence.get("learning_rates", [])},
        fix="Keep the parameters in float32 and run the forward under torch.autocast "
            "(bfloat16 needs no GradScaler), or use an optimizer with float32 master "
            "weights (or Kahan summation / stochastic rounding for pure bf16).")
