"""Which axis a log-probability loss's input was normalised over (real-bug batch 97).

NLLLoss takes log-probabilities of shape (N, C, ...): exp of its input sums to 1 over the
class axis (dim 1) for every sample and position. A softmax taken over another axis - most
often the batch, as ``F.softmax(scores)`` without ``dim`` does for a 3-D tensor (PyTorch's
implicit choice is dim 0 there, where TensorFlow's softmax uses the last axis) - leaves the
class axis unnormalised and the batch axis summing to 1 instead. The first calls' inputs
ride along with the step's transfer (small ones only), and on the host the two sums are
measured: ``LossCall.class_mass_error`` and ``LossCall.batch_mass_error``
(LOG_PROBS_NORMALISED_OVER_BATCH, ``rules/log_prob_axes.py``).

CTC's input is (T, N, C) log-probabilities: the classes are the LAST axis, and dim 0 is
time. ``F.log_softmax(scores)`` without ``dim`` on it normalises each label over the frames
(real-bug batch 176): every value stays <= 0, so only the sums tell. Its calls are measured
the same way, the class axis last (CTC_NOT_LOG_PROBABILITIES, ``rules/ctc_inputs.py``).
"""
import numpy as np

NLL_LOSSES = {"NLLLoss", "nll_loss"}
CTC_LOSSES = {"CTCLoss", "ctc_loss"}     # (T, N, C): the classes last
MEASURED_LOSSES = NLL_LOSSES | CTC_LOSSES
CALLS_MEASURED = 8           # [design] the first recorded calls: a softmax's axis does not
                             # change later in the run (target_ids.CALLS_SAMPLED's reasoning)
MAX_ELEMENTS = 1 << 16       # [design] inputs up to 65,536 values (256 KB of float32) cross
                             # to the host; a larger one is not measured (no finding, no cost)
KEY = ("loss_call", "log_prob_block")


def class_axis(name):
    """The class axis of a log-probability loss's input: 1 for NLL, the last for CTC."""
    return -1 if name in CTC_LOSSES else 1


def pack(packet, name, output, calls_so_far):
    """Queue a small NLL input of (N >= 2, C >= 2, ...), or a CTC input of (T >= 2, N,
    C >= 2), for the host on the first calls."""
    if name not in MEASURED_LOSSES or calls_so_far >= CALLS_MEASURED:
        return
    shape = tuple(output.shape)
    if len(shape) < 2 or shape[0] < 2 or shape[class_axis(name)] < 2 or \
            (name in CTC_LOSSES and len(shape) != 3) or int(np.prod(shape)) > MAX_ELEMENTS:
        return
    packet.add(KEY, output)


def take(values, shape, name=None):
    """(class_mass_error, batch_mass_error): the largest |sum of exp - 1| over the class axis
    (dim 1; CTC's last) and over dim 0 (the batch; CTC's time); (None, None) when not
    measured."""
    block = values.get(KEY)
    if block is None:
        return None, None
    log_probs = np.asarray(block, dtype=np.float64).reshape(shape)
    with np.errstate(over="ignore", invalid="ignore"):
        mass = np.exp(log_probs)
        class_error = float(np.max(np.abs(mass.sum(axis=class_axis(name)) - 1)))
        batch_error = float(np.max(np.abs(mass.sum(axis=0) - 1)))
    return class_error, batch_error
