"""OUTPUT_NORMALISED_BEFORE_SQUASH: a per-sample normalisation layer feeds the model's final
sigmoid or tanh (real-bug batch 105).

An instance norm, layer norm or group norm standardises each sample on its own: whatever
the layers below computed, the values it hands on have, for every sample, the same mean and
the same spread (its two learned numbers, or 0 and 1). When it sits right before the
squashing output, every output image (or vector) of the model is that one fixed
distribution pushed through the sigmoid or tanh: the model cannot make one output darker,
fainter, brighter or more contrasted than another, only move values around inside it.
CycleGAN's and pix2pix's generators end in a convolution and a tanh with no normalisation
between them for that reason (junyanz/pytorch-CycleGAN-and-pix2pix, networks.py); a port
that normalised the tanh's input lost its colours (naoto0804/chainer-cyclegan#2).

Batch norm is left out: it standardises each channel over the batch, so samples may still
differ from one another (only the batch as a whole is pinned), and a model with batch norm
before its output trains (DCGAN advises against it, but for stability, not range).

Read from what is already recorded, at diagnosis time: the layers in registration order
(``run.layers``) and the loss calls' output range (``run.observed.loss_calls``), which
confirm that the squashing layer really is the output (its values stay within its range),
the way TARGETS_OUTSIDE_OUTPUT_RANGE checks it. No per-step cost.
"""
from ..findings import Finding
from .context import MAJORITY, fmt, judged_loss_calls
from .graph import rule

# normalisations that standardise each sample by its own statistics (torch's and
# minigrad's names); BatchNorm is not one of them (see above)
PER_SAMPLE_NORMS = {"InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LayerNorm",
                    "GroupNorm", "RMSNorm"}
# what a squashing output can reach (torch's Sigmoid and Tanh)
SQUASH_RANGE = {"sigmoid": (0.0, 1.0), "tanh": (-1.0, 1.0)}
# layers that hand their input on unchanged in range (skipped between the two)
PASS_THROUGH = {"Dropout", "Dropout2d", "Dropout1d", "Dropout3d", "AlphaDropout", "Identity",
                "Flatten", "Unflatten"}
# losses whose calls say what range the model's output had
VALUE_LOSSES = {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "mse_loss", "l1_loss",
                "smooth_l1_loss", "huber_loss", "BCELoss", "binary_cross_entropy"}
MIN_OUTPUT_CALLS = 3          # [design] recorded loss calls before the output is trusted
SQUASH_BOUND_SLACK = 1e-6     # [design] an output at its bound, up to float32 rounding


def _norm_then_squash(layers):
    """(norm layer, squash layer) when the model's last two layers that change values are a
    per-sample normalisation and then a sigmoid or tanh; None otherwise."""
    counted = [layer for layer in layers if layer.type not in PASS_THROUGH]
    if len(counted) < 2:
        return None
    norm, squash = counted[-2], counted[-1]
    if squash.kind not in SQUASH_RANGE or norm.type not in PER_SAMPLE_NORMS:
        return None
    return norm, squash


def _output_is_squashed(calls, low, high):
    """Whether most recorded loss calls saw outputs inside the squash's range: the last
    registered layer is the model's output, not a layer registered late but used inside."""
    slack = SQUASH_BOUND_SLACK
    inside = [c for c in calls if low - slack <= c.output_min and c.output_max <= high + slack]
    return len(calls) >= MIN_OUTPUT_CALLS and len(inside) >= MAJORITY * len(calls)


@rule(produces="OUTPUT_NORMALISED_BEFORE_SQUASH", explains={"LOSS_PLATEAU"})
def output_normalised_before_squash(ctx):
    pair = _norm_then_squash(ctx.run.layers)
    if pair is None:
        return None
    norm, squash = pair
    low, high = SQUASH_RANGE[squash.kind]
    calls = judged_loss_calls(ctx, VALUE_LOSSES)
    if not _output_is_squashed(calls, low, high):
        return None
    return Finding(
        code="OUTPUT_NORMALISED_BEFORE_SQUASH", severity="warning", where=norm.name,
        step=calls[0].step,
        message=f"The model's output is {squash.type} ({squash.name}) of a {norm.type} "
                f"({norm.name}): each sample is standardised on its own right before the "
                f"output, so every output has the same mean and spread before the "
                f"{squash.kind} (only the norm's two learned numbers set them). The model "
                f"cannot make one output brighter, darker or more contrasted than another "
                f"(outputs in [{fmt(low)}, {fmt(high)}] on {len(calls)} recorded loss "
                "calls); what differs between targets in those respects is lost.",
        evidence={"norm": norm.name, "norm_type": norm.type, "output": squash.name,
                  "output_kind": squash.kind, "loss_calls": len(calls)},
        fix=f"Remove {norm.name}: let the last convolution or linear layer feed the "
            f"{squash.kind} directly (CycleGAN and pix2pix generators end in conv -> tanh); "
            "keep the normalisation in the hidden blocks.")
