"""TARGETS_IN_INPUTS in training mode only: a decoder fed the ground truth it predicts.

Teacher forcing feeds a sequence decoder the ground truth of the *previous* step while it
trains. Feed it the ground truth of the step it is predicting - ``trajectory[:, i]`` for
output i instead of ``trajectory[:, i - 1]`` - and training turns into copying: the loss
falls to almost nothing, and at test time, when the decoder feeds back its own
predictions, the copy it learned is worthless. The eval-mode probes cannot see it: in
eval mode the forward never reads the ground truth (it branches on ``self.training``).

So this probe runs the private copy once more in training mode - only the user's own
modules (the ones whose forward may branch on ``self.training``); the framework's layers
stay in eval mode, so dropout layers are off and batch-norm neither mixes samples nor
updates its running statistics (and the copy is private anyway: the user's model, modes,
buffers and RNG are untouched). It asks, cheapest first:

1. do the targets lie in the inputs? ``targets[:, t] == inputs[:, t + k]`` for one offset
   k with the targets inside the inputs (a forecaster fed the whole window: the observed
   steps and the ones to predict); no: nothing to check (no model run);
2. does training mode change the output on the same batch? no: nothing to check;
3. the gradient, in each mode, of the output at each target position t with respect to
   every input position: a position ``p >= t + k`` (the target of t, or a later one) read
   in training mode and NOT in eval mode is a ground truth the decoder is fed while it
   trains. What eval mode reads as well is a design (an autoencoder, a model fed its
   whole window), for the eval-mode probes to judge.
"""
import numpy as np

from ...findings import Finding
from .alignment import AGREEMENT, _share
from .future import positions_first
from .measure import RELATIVE_TOLERANCE, gradient_mass, relative, row_changes

FRAMEWORK_PACKAGES = ("torch", "minigrad")
"""Modules defined by these packages keep eval mode in the training-mode pass (their
training behaviour - dropout, batch statistics - is what eval mode exists to switch off)."""
MAX_PAIRS_SHOWN = 12


def worth_a_train_mode_pass(runner, batch, y):
    """Whether the user's model trains modules of its own and its (float, per-position)
    targets lie inside the inputs: step 1, no model run."""
    return y is not None and batch.is_float and batch.length is not None and y.ndim >= 2 and \
        bool(_user_modules_training(runner)) and targets_inside_inputs(batch.x, y) is not None


def probe_train_mode(runner, batch, y, n, base_out, rng, sample=0):
    """(findings, notes): the training-mode pass (see the module docstring)."""
    if not worth_a_train_mode_pass(runner, batch, y):
        return [], []
    user = _user_modules_training(runner)
    offset = targets_inside_inputs(batch.x, y)
    with _training(user):
        trained, _ = runner.forward(batch.rows(range(n)), n, batch.length)
    if trained.shape == base_out.shape and \
            float(row_changes(base_out, trained).max()) <= RELATIVE_TOLERANCE:
        return [], []                     # training mode computes the same: nothing new
    length = y.shape[1]
    eval_reads = _reads(runner, batch, sample, length, rng)
    with _training(user):
        train_reads = _reads(runner, batch, sample, length, rng)
    if eval_reads is None or train_reads is None:
        return [], ["training-mode pass not checked: the output has no axis for the "
                    f"targets' {length} positions"]
    pairs = [(t, p) for t in range(length) for p in range(t + offset, batch.length)
             if train_reads[t, p] > RELATIVE_TOLERANCE >= eval_reads[t, p]]
    if not pairs:
        return [], []
    return [_finding(pairs, offset, length)], []


def targets_inside_inputs(x, y):
    """The offset k with ``y[:, t] == x[:, t + k]`` (float inputs, exactly, at 90% of the
    positions), for the offsets that keep every target inside the inputs; None if none.
    (``alignment.py`` measures the small shifts of next-token tasks; this reads the larger
    ones of a window holding both the observed and the predicted steps.)"""
    if x.ndim < 2 or x.shape[0] != y.shape[0] or x.shape[2:] != y.shape[2:] or \
            x.dtype.kind != "f" or y.dtype.kind != "f" or y.shape[1] < 2:
        return None
    for k in range(0, x.shape[1] - y.shape[1] + 1):
        share = _share(x, y, k, None)
        if share is not None and share >= AGREEMENT:
            return k
    return None


def _user_modules_training(runner):
    """The private copy's modules of the user's own classes that the user's model had in
    training mode (``runner.switched``: the copy itself runs in eval mode)."""
    switched = set(runner.switched)
    return [module for name, module in runner.work.named_modules()
            if name in switched and type(module).__module__.split(".")[0]
            not in FRAMEWORK_PACKAGES]


class _training:
    """Puts the given modules (of the private copy) in training mode, one by one (not their
    children), and back in eval mode afterwards, also on errors."""

    def __init__(self, modules):
        self.modules = modules

    def __enter__(self):
        for module in self.modules:
            module.training = True

    def __exit__(self, *exc):
        for module in self.modules:
            module.training = False
        return False


def _reads(runner, batch, sample, length, rng):
    """M[t, p]: how strongly the output at target position t reads input position p (the
    gradient of "output t of copy t" along a random direction, one backward pass on
    ``length`` copies of the sample), each row relative to its largest entry."""
    tree = batch.rows([sample] * length)
    out, _ = runner.forward(tree, length, batch.length)
    cotangent = np.zeros_like(out)
    arranged = positions_first(cotangent, length)
    if arranged is None:
        return None
    for t in range(length):
        arranged[t, t] = rng.normal(size=arranged[t, t].shape)
    grad = runner.input_gradient(tree, batch.primary, cotangent)
    return relative(gradient_mass(grad, 1))


def _finding(pairs, offset, length):
    first_t = pairs[0][0]
    own = [(t, p) for t, p in pairs if p == t + offset]
    reads = "the target of that very position" if own else "the target of a later position"
    return Finding(
        "TARGETS_IN_INPUTS", "error", "",
        message=f"in training mode only, the output at target position {first_t} reads "
                f"input position {pairs[0][1]}, which holds {reads} (targets[:, t] == "
                f"inputs[:, t + {offset}]); {len(own)} of the {length} target positions read "
                "their own target. In eval mode the model does not read it: the decoder is fed "
                "the ground truth it is asked to predict while it trains (teacher forcing one "
                "step too late), learns to copy it, and is worthless when it must feed back "
                "its own predictions",
        evidence={"pairs": [[int(t), int(p)] for t, p in pairs[:MAX_PAIRS_SHOWN]],
                  "n_pairs": len(pairs), "offset": int(offset), "mode": "train",
                  "own_target_positions": len(own),
                  "meaning": "pair [t, p]: in training mode (not in eval mode) the output at "
                             "target position t reads input position p >= t + offset, where "
                             "inputs[:, t + offset] == targets[:, t]"},
        fix="teacher forcing feeds the ground truth of the previous step: for output i, the "
            "input at t + offset - 1 (the last observed step for i = 0), never the step being "
            "predicted")
