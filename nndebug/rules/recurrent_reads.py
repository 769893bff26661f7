"""RNN_READ_BEFORE_RECURRENCE: a recurrent layer's output is read at a step where one of its
directions has run only once.

A recurrent weight (PyTorch's ``weight_hh_l<k>``, ``weight_hh_l<k>_reverse``) multiplies the
previous hidden state. At a direction's FIRST step that state is the initial one, zeros by
default, so the weight's gradient there is exactly zero. If the loss reads the layer only at
that step, the recurrent weight gets an exactly zero gradient on every step while the input
weight of the same direction learns: the direction is used, its recurrence never is. The
usual way to get there is a bidirectional layer summarised by ``output[:, -1]``: its forward
half has read the whole sequence, its backward half (which starts at the end) one step only
(yunjey/pytorch-tutorial#149). ``output[:, 0]`` of a forward layer is the mirror image.

NO_GRADIENT names the zero gradient as well, with generic guesses (dropout p=1, a mask of
zeros); this rule names the reading, and explains it. Costs nothing per step: it reads the
per-parameter gradient norms the monitor records anyway, and the parameters' names.
"""
import re

import numpy as np

from ..findings import Finding
from .context import MIN_RECORDS, module_of, per_parameter, short_list
from .graph import rule

# [torchinit] PyTorch's names for a recurrent layer's weights: weight_hh_l<k>[_reverse]
# multiplies the previous hidden state, weight_ih_l<k>[_reverse] the input at that step
RECURRENT_WEIGHT = re.compile(r"^(?P<module>.*)\.weight_hh_(?P<layer>l\d+)(?P<reverse>_reverse)?$")


def _zero_recurrence(ctx):
    """[(recurrent weight name, its input weight name)] whose recurrent weight got a gradient
    of exactly zero on every recorded backward pass while the input weight of the same
    layer and direction got a nonzero one."""
    params = ctx.run.params
    width = len(params)
    index = {p.name: i for i, p in enumerate(params)}
    pairs = []
    for i, p in enumerate(params):
        match = RECURRENT_WEIGHT.match(p.name)
        if match is None:
            continue
        sibling = f"{match['module']}.weight_ih_{match['layer']}{match['reverse'] or ''}"
        if sibling in index:
            pairs.append((i, index[sibling]))
    if not pairs:
        return []
    norms = [per_parameter(r, "grad_norm", width) for r in ctx.records if r.backward]
    norms = [n for n in norms if n is not None]
    if len(norms) < MIN_RECORDS:
        return []
    grads = np.vstack([np.asarray(n, float) for n in norms])
    found = []
    for hh, ih in pairs:
        if np.all(grads[:, hh] == 0) and np.all(np.isfinite(grads[:, ih])) and \
                np.all(grads[:, ih] > 0):
            found.append((params[hh].name, params[ih].name))
    return found


@rule(produces="RNN_READ_BEFORE_RECURRENCE",
      explains={"NO_GRADIENT", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def rnn_read_before_recurrence(ctx):
    found = _zero_recurrence(ctx)
    if not found:
        return None
    recurrent = [hh for hh, _ in found]
    backward = [hh for hh in recurrent if hh.endswith("_reverse")]
    where = module_of(recurrent[0])
    if backward:
        reading = ("the backward direction of a bidirectional layer is read only at the last "
                   "time step, which is its first: output[:, -1] (or output[-1] when not "
                   "batch_first) holds the forward direction's summary of the whole sequence "
                   "beside a backward state that has seen one step, so half of what the next layer "
                   "reads carries one step of the sequence")
        fix = ("Summarise a bidirectional layer with its final states: h_n[-2] (forward, after "
               "the last step) and h_n[-1] (backward, after the first), concatenated; or pool "
               "the output over time. With padding, take each direction's state at the "
               "sequence's own end (pack_padded_sequence does that for h_n).")
    else:
        reading = ("the layer is read only at a step where the recurrence has not run yet "
                   "(output[:, 0], the first time step), so it acts as a single feed-forward "
                   "layer on one step's input")
        fix = ("Read the output at the last time step (output[:, -1], or h_n) for a forward "
               "layer, or pool over all time steps.")
    return Finding(
        code="RNN_READ_BEFORE_RECURRENCE", severity="warning", where=where,
        step=ctx.first_step,
        message=f"The recurrent weight(s) {short_list(recurrent)} get a gradient of exactly "
                "zero on every recorded step while the input weights of the same direction "
                f"learn: {reading}. That recurrence never learns.",
        evidence={"recurrent_weights": recurrent,
                  "input_weights": [ih for _, ih in found]},
        fix=fix)
