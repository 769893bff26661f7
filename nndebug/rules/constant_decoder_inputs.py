"""DECODER_INPUT_CONSTANT: a sequence input that holds one value everywhere, and an output
that is the same at every one of its positions - a decoder fed a constant (zeros) where
teacher forcing feeds the shifted targets.

``model(x, torch.zeros_like(y))`` trains an encoder-decoder whose decoder positions all read
one vector: without positions of its own, the decoder gives every step of the horizon the
same value, and the forecast comes out flat. Public report: "Solving the PyTorch Transformer
Stagnation: Why Multi-Dimensional Seq2Seq Outputs Become Constant",
https://openillumi.com/en/en-pytorch-transformer-multidim-output-same-fix ("a zero tensor
(torch.zeros) was incorrectly passed as the decoder input (tgt)").

Read from ``run.observed.constant_decoder_inputs`` (``monitor/constant_decoder_inputs.py``):
on the first recorded steps, a float input after the first held one value, and the model's
output over the same (batch, positions) was the same at every position. A constant input
whose positions the model still tells apart (zeros next to positional embeddings, a float
mask of ones) is not named.
"""
from ..findings import Finding
from .graph import rule

DECODER_FLAT_OUTPUT = 1e-4   # [measured] largest change of the output across the constant
                             # input's positions, relative to its largest magnitude: float
                             # rounding of averages over identical vectors stays below 1e-6
                             # (forecast_decoder_fed_zeros); a decoder with positions added to
                             # the same zeros moves by 0.1 and more


@rule(produces="DECODER_INPUT_CONSTANT", explains={"COLLAPSED_ACTIVATIONS", "LOSS_PLATEAU"})
def decoder_input_constant(ctx):
    rows = getattr(getattr(ctx.run, "observed", None), "constant_decoder_inputs", None) or []
    flat = [r for r in rows if r[4] <= DECODER_FLAT_OUTPUT]
    if not flat or len(flat) * 2 < len(rows):
        return None
    step, index, shape, value, spread = flat[0]
    positions = shape[1]
    return Finding(
        code="DECODER_INPUT_CONSTANT", severity="warning", step=step,
        message=f"float input #{index} of the model (shape {tuple(shape)}) holds {value:g} at "
                f"every sample and position, and the model's output is the same at all "
                f"{positions} of its positions (largest change {spread:.1e} of its size): a "
                "decoder fed a constant where teacher forcing feeds the shifted targets cannot "
                "tell its steps apart, so every step gets one prediction",
        evidence={"input": int(index), "shape": list(shape), "value": value,
                  "output_spread_over_positions": spread, "steps_read": len(rows),
                  "steps_flat": len(flat), "threshold": DECODER_FLAT_OUTPUT},
        fix="feed the decoder the targets shifted right behind the last known value (or a "
            "start token), model(x, torch.cat([x[:, -1:], y[:, :-1]], 1)), under a causal mask, "
            "and its own predictions at inference; if a placeholder is meant (Informer-style), "
            "add positional or time embeddings on the decoder's side so each step is told apart")
