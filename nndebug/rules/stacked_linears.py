"""LINEAR_LAYERS_STACKED: a Linear layer reads another Linear layer's output directly, and
the width between them is no bottleneck: the two are one affine map with extra parameters.

W2 (W1 x + b1) + b2 = (W2 W1) x + (W2 b1 + b2): without a nonlinearity between them, a
hidden layer adds no capacity. Reported in nutonomy/nuscenes-devkit#728 (MTP's head
computes ``self.fc2(self.fc1(features))``; the maintainer: "Ooops, that looks like an
error") and Nota-NetsPresso/netspresso-trainer#320 ("There is no activation layer in FC").
The product has rank at most the width between the layers: when that width is smaller than
both ends (LoRA's ``B(A(x))``, a linear bottleneck), the pair is a low-rank factorisation
on purpose, and it is left alone; so is a pair whose first layer is frozen (a linear probe
stacked on a fixed projection), and (torch) one whose first output is read by more than the
second layer (a residual skip, the keys and values beside the queries): the monitor drops
those before they reach this rule.

Reads ``run.observed.stacked_linears`` (``monitor/stacked_linears.py``): pairs seen on the
first recorded steps, each with its widths and whether its first layer trains.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


def collapsing_pairs(ctx):
    """The noted pairs that are one full-rank affine map: the width between them at least
    the narrower end, and the first layer trained."""
    return [row for row in observed_list(ctx, "stacked_linears")
            if row[6] and row[4] >= min(row[3], row[5])]


@rule(produces="LINEAR_LAYERS_STACKED")
def linear_layers_stacked(ctx):
    pairs = collapsing_pairs(ctx)
    if not pairs:
        return None
    step, first, second, inputs, width, outputs, _ = pairs[0]
    more = f" ({len(pairs) - 1} more such pair(s))" if len(pairs) > 1 else ""
    return Finding(
        code="LINEAR_LAYERS_STACKED", severity="warning", where=f"{first} -> {second}",
        step=int(step),
        message=f"Linear layer '{second}' reads the output of Linear layer '{first}' "
                f"directly, with no activation between them{more}: {inputs} -> {width} -> "
                f"{outputs} is one affine map of {inputs} -> {outputs} (two linear maps in a "
                "row compose to one), so the hidden layer adds parameters and no capacity.",
        evidence={"pairs": [{"first": f, "second": s, "in_features": i, "width": w,
                             "out_features": o} for _, f, s, i, w, o, _ in pairs[:8]]},
        fix="Put the nonlinearity between them (fc2(relu(fc1(x))), or nn.ReLU() in the "
            "Sequential); if one map is meant, use one Linear layer.")
