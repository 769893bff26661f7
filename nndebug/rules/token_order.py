"""POSITIONS_IGNORED for an attention model with no positional tensor: shuffling the tokens
of each sequence left its output as it was (``run.observed.order_blind_outputs``,
``monitor/order_blind_attention.py``).

Self-attention sees a set: without a positional encoding (or a causal mask, a recurrent or
convolutional layer) nothing tells it where a token stands. The model still trains - a bag
of tokens says a lot - but everything that depends on the order is out of its reach. The
dependency probes name positional tensors that make no difference; this names the model
that has none: the output was measured not to move when the tokens moved.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="POSITIONS_IGNORED")
def order_ignored_by_attention(ctx):
    rows = observed_list(ctx, "order_blind_outputs")
    if not rows:
        return None
    step, kind, length, change = rows[0]
    moved = ("the same summary" if kind == "pooled"
             else "the same outputs, moved with their tokens")
    return Finding(
        code="POSITIONS_IGNORED", severity="warning", where="model", step=step,
        message=f"The model's attention cannot tell where a token stands: with the "
                f"{length} tokens of each sequence shuffled it gave {moved} (largest change "
                f"{change:.1e} of the output's scale), and it has no positional parameter or "
                "buffer. It reads each sequence as a bag of tokens: whatever depends on "
                "their order is out of its reach.",
        evidence={"output": kind, "length": length, "relative_change": change,
                  "step": step},
        fix="Add a positional encoding to the token embeddings before the first attention "
            "layer: x = embed(ids) + pos_embed(torch.arange(T)) (learned), or a fixed "
            "sinusoidal table registered as a buffer.")
