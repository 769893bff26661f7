"""How many rows of an attention's weights are exactly uniform over the keys they see
(torch; real-bug batch 101, a causal mask in the wrong layout).

An attention function that applies a mask as ``scores + (1 - mask) * -1e9`` and is handed
an additive mask (0 = visible, -inf = hidden) adds -1e9 to every visible score. In float32
a score of a few units added to -1e9 is lost to rounding (the spacing of floats near 1e9
is 64), so every visible key gets the very same logit and each query spreads its weight
evenly: attention selects nothing. The same happens with any offset that swamps the
scores. Trained query and key projections never give bit-equal weights otherwise.

Called from ``attention_scales.AttentionScales.on_softmax`` on the softmaxes whose input
was traced back to a q @ k^T matmul, on the first recorded steps only, first call per site
and step: one reduction over the weights and two numbers read back to the host.
"""
import torch

UNIFORM_RELATIVE_SPREAD = 1e-6   # [measured] weights equal to float32 rounding: a swamped row
                                 # has spread 0.0 exactly; the healthy char GPT of batch 101's
                                 # twin, at step 0, has its rows spread by 1e-2 or more
MIN_VISIBLE_KEYS = 2             # [design] a row that sees one key is uniform by construction


def uniform_rows(weights):
    """(rows that see at least 2 keys, those of them whose nonzero weights are all equal)."""
    with torch.no_grad():
        w = weights.detach().reshape(-1, weights.shape[-1]).float()
        visible = w > 0
        seen = visible.sum(-1) >= MIN_VISIBLE_KEYS
        top = w.amax(-1)
        low = torch.where(visible, w, torch.full_like(w, float("inf"))).amin(-1)
        equal = seen & ((top - low) <= UNIFORM_RELATIVE_SPREAD * top)
        counts = torch.stack([seen.sum(), equal.sum()]).tolist()
    return int(counts[0]), int(counts[1])
