"""The loss of each position of a per-position classification, on recorded steps
(LABELS_MISALIGNED's drift check, ``nndebug.rules.label_drift``).

A frame tagger (sound-event detection, a per-frame speech or sensor labeller) is trained on
(batch, classes, positions) scores against (batch, positions) labels. When the labels are
computed on another time grid than the inputs - audio read at 24 kHz framed as if it were
16 kHz, a hop length in samples where the labels use another, a label rate rounded - input
frame t and label t agree at the start of a sequence and drift apart along it: the first
positions are learned, the last ones stay near chance. A model whose labels match its
inputs has about the same loss everywhere (a causal model: less later, with more context).

What is read (torch only): the loss call the loss capture keeps on a recorded step
(``loss_capture.py``), when it is a class-index loss (cross-entropy, NLL) of
(batch, classes, positions) scores against integer (batch, positions) targets with
``MIN_POSITIONS`` to ``MAX_POSITIONS`` positions: the per-position loss averaged over the
batch (targets equal to ``ignore_index`` left out), computed on the device and riding along
with the step's one host transfer (one vector of positions). Kept as
``run.observed.position_losses``: ``[(step, classes, [loss of each position], [the labels'
entropy at each position])]`` (the entropy: the loss of a model that knows only how often
each class occurs at that position, from the batch's labels), for the
latest ``KEPT`` such recorded steps after step 0 (watch records steps 1, 2, 4, 8, ... in
detail: the last ones lie deep in the run). Cost: a log-softmax, a gather and a bincount
per recorded step, 0.3 ms of CPU on the planted (32, 4, 32) scores, 0.5 ms on (64, 60, 32).
"""
import numpy as np

MIN_POSITIONS = 8          # [design] positions a sequence needs for a trend along it
MAX_POSITIONS = 4096       # [design] positions kept at most (one float each per record)
MAX_CLASSES = 64           # [design] classes at most (a count per class and position)
KEPT = 8                   # [design] latest recorded steps kept (a float per position each)
NLL_LOSSES = {"NLLLoss", "nll_loss"}          # their input is log-probabilities already
SCORE_LOSSES = {"CrossEntropyLoss", "cross_entropy"}


def pack(packet, name, output, target, options, observed):
    """Add this recorded step's per-position losses to the step's transfer, when the call is
    one this reads (not the first recorded call: step 0 shows the initial weights)."""
    if not observed.loss_calls or target is None:
        return
    if name not in NLL_LOSSES and name not in SCORE_LOSSES:
        return
    try:
        import torch
    except ImportError:
        return
    if not (isinstance(output, torch.Tensor) and isinstance(target, torch.Tensor)):
        return
    if output.ndim != 3 or target.ndim != 2 or target.dtype not in (torch.int64, torch.int32):
        return
    rows, classes, positions = output.shape
    if tuple(target.shape) != (rows, positions) or not 2 <= classes <= MAX_CLASSES or \
            not MIN_POSITIONS <= positions <= MAX_POSITIONS:
        return
    ignore = (options or {}).get("ignore_index")
    with torch.no_grad():
        scores = output.float()
        logp = scores if name in NLL_LOSSES else torch.log_softmax(scores, dim=1)
        valid = (target >= 0) & (target < classes)
        if ignore is not None:
            valid &= target != ignore
        valid &= ~_padded_tails(target, valid, classes)     # real-bug batch 163
        picked = -logp.gather(1, target.clamp(0, classes - 1).unsqueeze(1)).squeeze(1)
        weights = valid.float()
        seen = weights.sum(0)
        per = (picked * weights).sum(0) / seen.clamp(min=1)
        per = torch.where(seen > 0, per, torch.full_like(per, float("nan")))
        # the labels' entropy at each position: the loss of a model that knows only how
        # often each class occurs there
        cells = (torch.arange(positions, device=target.device) * classes + target)[valid]
        counts = torch.bincount(cells, minlength=positions * classes).view(
            positions, classes).float()                              # (positions, classes)
        shares = counts / counts.sum(1, keepdim=True).clamp(min=1)
        entropy = -(shares * torch.log(shares.clamp(min=1e-12))).sum(1)
    packet.add(("position_losses", "values"), per)
    packet.add(("position_losses", "entropy"), entropy)
    packet.add(("position_losses", "classes"), float(classes))


def _padded_tails(target, valid, classes):
    """(real-bug batch 163) The positions of padding no ``ignore_index`` leaves out: a loop
    that masks its per-position losses itself (``reduction="none"`` times its own mask)
    fills the rows' ends with a pad id that is never trained, and its loss there, high and
    late in the sequence, read as labels drifting along it (a translation model at 1.00
    exact match). A pad id ends rows and occurs nowhere else: the ids of the runs that end
    the rows which never occur before those runs. On the device, no host transfer."""
    import torch
    last = target[:, -1:]
    tail = (target == last).flip(1).to(torch.int64).cumprod(1).flip(1).bool()
    safe = target.clamp(0, classes - 1)
    inside = torch.bincount(safe[valid & ~tail], minlength=classes)
    ending = torch.bincount(safe[valid & tail], minlength=classes)
    pad_ids = (ending > 0) & (inside == 0)
    return tail & pad_ids[safe]


def take(values, observed, step):
    """Keep what ``pack`` sent (host values of the step's transfer)."""
    per = values.get(("position_losses", "values"))
    entropy = values.get(("position_losses", "entropy"))
    classes = values.get(("position_losses", "classes"))
    if per is None or entropy is None or classes is None:
        return
    observed.position_losses.append(
        (int(step), int(classes[0]), [float(v) for v in np.asarray(per).reshape(-1)],
         [float(v) for v in np.asarray(entropy).reshape(-1)]))
    del observed.position_losses[:-KEPT]            # the latest KEPT
