"""Does the order of the tokens reach an attention model's output at all (POSITIONS_IGNORED
for a model with no positional tensors, ``nndebug.rules.token_order``)?

Self-attention treats its input as a set: without a positional encoding added somewhere
(or a causal mask, or a recurrent or convolutional layer, which bring order in by
themselves) the tokens "CCO" and "OCC" are the same input to it. Such a model trains and
its loss falls - a bag of tokens tells a lot - but whatever depends on the order is out
of its reach. The dependency probes test positional tensors that make no difference; a
model that has none is left to this check.

The test is the definition: the first training call's token ids, each row's inner tokens
moved one place on (the first and last stay: a [CLS] summary or a last-token one still
reads its own token), run on a private copy
(``token_reruns.py``). An order-blind model gives the same output for a pooled summary
(invariance) or the same outputs moved with their tokens for one output per position
(equivariance). Only models with an attention layer, a token embedding, and no positional
tensor are tried (a bag-of-words model - embeddings averaged - is order-blind by design and
has no attention layer). A 0/1 padding mask of the ids' shape moves with its tokens; a
call with position ids (or anything else per position) is not read. Kept as
``run.observed.order_blind_outputs``: ``[(step, "pooled" | "per position", sequence
length, largest change of the output, relative to its scale)]``, a row only when the
output did not move.
"""
import numpy as np

from .token_id_shares import token_embeddings

ORDER_BLIND_MIN_LENGTH = 4        # [design] shorter sequences are not read (a pair's order
                                  # is one bit)
ORDER_BLIND_TOLERANCE = 1e-6      # [design] float64 outputs that moved less than this
                                  # (relative to their largest magnitude) did not move
ATTENTION_TYPES = ("MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
                   "TransformerEncoder", "TransformerDecoder", "Transformer")   # [design]


def has_attention(adapter):
    """True when a module is one of torch's attention layers or calls itself an attention
    (``SelfAttention``, ``CausalSelfAttention``...)."""
    for _, module in adapter.named_modules():
        kind = adapter.module_type(module)
        if kind in ATTENTION_TYPES or "Attention" in kind:
            return True
    return False


def worth_checking(adapter):
    """An attention model over token ids with no positional tensor."""
    from ..probes.dependencies.positions import positional_tensors
    return bool(token_embeddings(adapter)) and has_attention(adapter) and \
        not positional_tensors(adapter)


def read_order_blindness(call, step, observed, on_error):
    """Run the check on the kept call (``token_reruns.FirstTokenCall``) and keep its row."""
    try:
        row = order_blind_row(call)
        if row is not None:
            observed.order_blind_outputs = [(-1 if step is None else int(step), *row)]
    except Exception as error:            # a model the copy cannot run: nothing to say
        on_error(error)


def order_blind_row(call):
    """(kind, length, relative change) when shuffling the tokens left the output as it
    was (or moved it with them); None otherwise, or when the call cannot be read."""
    ids = call.token_ids()
    if ids is None or ids.ndim != 2 or ids.shape[1] < ORDER_BLIND_MIN_LENGTH:
        return None
    masks = {}
    for place, other in call.other_tensors().items():
        if np.all(other == other[:, :1]):
            continue                      # the same for every position: nothing to move
        if other.strides[0] == 0 or not np.isin(other, (0, 1)).all():
            return None                   # position ids, or something per position: no
                                          # shuffle tells what the model does with order
        masks[place] = other              # a padding mask moves with its tokens
    length = ids.shape[1]
    # the tokens between the first and the last move one place on; the ends stay where
    # they are ([CLS] in front, an end token or a last-token summary at the back)
    permutation = np.concatenate([[0], np.roll(np.arange(1, length - 1), 1), [length - 1]])
    shuffled = ids[:, permutation]
    if np.array_equal(shuffled, ids):
        return None
    moved_inputs = {call.where: shuffled}
    moved_inputs.update({place: mask[:, permutation] for place, mask in masks.items()})
    outputs = call.rerun([ids, moved_inputs])
    if outputs is None:
        return None
    plain, moved = outputs
    if plain is None or moved is None or plain.shape != moved.shape or plain.ndim == 0 or \
            len(plain) < 2:
        return None
    scale = float(np.abs(plain).max())
    if scale == 0 or not np.isfinite(scale) or \
            float(np.abs(plain - plain[:1]).max()) <= ORDER_BLIND_TOLERANCE * scale:
        return None                       # an output that reads no token at all
    if plain.ndim >= 2 and plain.shape[1] == length:
        kind, expected = "per position", plain[:, permutation]
    else:
        kind, expected = "pooled", plain
    change = float(np.abs(moved - expected).max()) / scale
    if change > ORDER_BLIND_TOLERANCE:
        return None
    return kind, int(length), change
