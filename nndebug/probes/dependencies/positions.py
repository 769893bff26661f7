"""POSITIONS_IGNORED: the model has positional parameters, but positions make no difference.

Attention is order-blind: without positional information, "dog bites man" and "man bites
dog" look alike. So sequence models add a positional embedding or encoding - and it is
easy to compute one and never use it: add it to a copy that is then dropped, index it by
``x.size(0)`` on batch-first tensors (the encoding then varies over the batch, not over
positions), or build the positions from zeros. The model trains, just worse, and nothing
complains.

Two experiments on the private copy, only for models that have positional parameters or
buffers (order-free models are legitimately order-free):

- the constant sequence: every position holds the same token (or vector). With working
  positional information the outputs at different positions differ; without it an
  attention model gives the same output everywhere. Models whose output is not per
  position are checked by permuting the positions instead (the output must change).
- each positional tensor is disturbed in turn: if the output does not move at all, that
  tensor never reaches it.
"""
import re

import numpy as np

from ...findings import Finding
from .measure import RELATIVE_TOLERANCE, row_changes

POSITIONAL_PART = re.compile(
    r"^(w?pe|pos|positions?"
    r"|.*position_?(s|al)?(_?(emb|embed|embedding|embeddings|enc|encoding|ids))?"
    r"|pos_?(emb|embed|embedding|embeddings|enc|encoding|encoder)s?|embed_positions|.*_pos)$",
    re.IGNORECASE)
"""A name part that marks a positional tensor: pos, pos_emb, wpe (GPT-2), pe (the PyTorch
tutorial's PositionalEncoding), position_embeddings (BERT), embed_positions (fairseq)..."""
NOT_POSITIONAL = re.compile(r"relative|rel_|alibi|rotary|rope|bias|pos_weight", re.IGNORECASE)
"""Relative schemes act on attention scores only (a sequence of identical tokens gives identical
outputs with them too), and BCE's pos_weight is no position at all."""
POSITIONAL_TYPES = re.compile(r"position|posenc|posemb", re.IGNORECASE)


def positional_tensors(adapter):
    """[(qualified name, float tensor)] of the parameters and buffers that encode positions."""
    found, seen = [], set()
    owners = {name for name, m in adapter.named_modules()
              if name and POSITIONAL_TYPES.search(adapter.module_type(m))}
    named = list(adapter.named_parameters()) + list(adapter.model.named_buffers())
    for name, tensor in named:
        parts = name.split(".")
        by_name = any(POSITIONAL_PART.match(p) for p in parts) and not NOT_POSITIONAL.search(name)
        by_owner = any(name.startswith(o + ".") for o in owners)
        if not (by_name or by_owner) or id(tensor) in seen:
            continue                  # (read no other tensor: on a GPU that is a copy each)
        if adapter.to_numpy(tensor).dtype.kind == "f":
            seen.add(id(tensor))
            found.append((name, tensor))
    return found


def probe_positions(runner, batch, rng, sample=0):
    """(findings, notes)."""
    length = batch.length
    work = runner.work
    tensors = positional_tensors(work)
    if not tensors or length is None or length < 2:
        return [], []
    notes = []
    for name, tensor in tensors:         # learned embeddings initialised to zero: wake them
        if not np.any(work.to_numpy(tensor)):
            _write(work, tensor, rng.normal(0.0, 0.02, size=work.to_numpy(tensor).shape))
            notes.append(f"{name} is all zeros; the positions were checked with small random "
                         "values")
    x = batch.x
    constant = np.repeat(x[sample:sample + 1, :1], length, axis=1)
    order = rng.permutation(length)
    while length > 1 and np.array_equal(order, np.arange(length)):
        order = rng.permutation(length)
    permuted = x[sample:sample + 1, order]
    rows = [sample] * 3
    out, _ = runner.forward(batch.rows(rows, primary=np.concatenate([x[sample:sample + 1], constant,
                                                                   permuted])), 3, length)
    if out.ndim >= 2 and out.shape[1] == length:
        spread = float(row_changes(out[1, :1].repeat(length, axis=0), out[1]).max())
        test = "constant sequence"
    else:
        spread = float(row_changes(out[0:1], out[2:3]).max())
        test = "permuted positions"
    unused = [name for name, tensor in tensors if not _moves_output(runner, batch, sample, tensor,
                                                                     out[0], rng)]
    if spread > RELATIVE_TOLERANCE and not unused:
        return [], notes
    where = (unused or [tensors[0][0]])[0]
    if unused:
        message = f"the positional tensor(s) {', '.join(unused)} never reach the output " \
                  "(disturbing them changes nothing): the model cannot tell positions apart"
    else:
        what = ("a sequence holding the same token everywhere gives the same output at every "
                "position" if test == "constant sequence" else
                "permuting the positions of a sample leaves its output unchanged")
        message = f"the model has positional parameters ({_names(tensors)}) but {what}: " \
                  "it cannot tell positions apart"
    return [Finding(
        "POSITIONS_IGNORED", "error", where.rsplit(".", 1)[0],
        message=message,
        evidence={"positional_tensors": [n for n, _ in tensors], "unused": unused,
                  "test": test, "spread": spread, "positions": length},
        fix="add the positional encoding to the token embeddings that go on "
            "(x = tok_emb(ids) + pos_emb(torch.arange(T))); with batch-first tensors index the "
            "encoding by the sequence length x.size(1), not x.size(0) (the PyTorch tutorial's "
            "PositionalEncoding expects (T, B, E))")], notes


def _moves_output(runner, batch, sample, tensor, reference, rng):
    work = runner.work
    saved = work.to_numpy(tensor)
    scale = float(np.std(saved)) or 0.02
    try:
        _write(work, tensor, saved + rng.normal(0.0, scale, size=saved.shape))
        out, _ = runner.forward(batch.rows([sample]), 1, batch.length)
    finally:
        _write(work, tensor, saved)
    return float(row_changes(reference[None], out).max()) > RELATIVE_TOLERANCE


def _write(work, tensor, array):
    if isinstance(tensor, np.ndarray):
        tensor[...] = array
    else:
        work.set_parameter(tensor, array)


def _names(tensors):
    names = [n for n, _ in tensors]
    return ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
