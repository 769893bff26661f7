"""Rules about a setting copied with another framework's meaning: a TensorFlow-sized weight
decay handed to Adam, a keep probability handed to a dropout layer as its rate.

Both settings are read once when watching starts (``monitor/settings.py``,
``run.observed.optimizer_settings`` and ``.dropout_settings``). A setting alone is not a
bug: Adam with weight_decay=0.01 or Dropout(0.8) can be a deliberate choice. So each rule
is a warning only when the run shows what the setting does (learning is poor, the weights
shrink, the loss stays high), and info when the setting is there but the run learns well.

- COUPLED_WEIGHT_DECAY_TOO_LARGE: Adam (and Adamax, NAdam, RAdam) ADD weight_decay x w to
  the gradient before normalising it, so a decay that outweighs the loss's gradient makes
  every step lr x sign(w): a fixed pull towards zero, whatever the loss wants. AdamW (or
  ``decoupled_weight_decay=True``) shrinks the weights apart from the gradient and is fine
  with decays of 0.01 to 0.1.
- DROPOUT_RATE_TOO_HIGH: torch's and minigrad's ``p`` is the probability of ZEROING a value;
  TensorFlow 1's ``keep_prob`` is the probability of keeping it. Dropout(0.9) meant as
  keep_prob=0.9 drops nine values in ten and scales the rest by ten.
"""
from ..findings import Finding
from .context import observed_list, short_list
from .curve import learning_poor
from .graph import rule

COUPLED_DECAY_LIMIT = 1e-2   # [torchadam] weight_decay from 0.01 up, added to Adam's
                             # gradient: L2 with Adam is usually 0 to 5e-4 (torch's Adam
                             # default is 0); 0.01 is AdamW's default, where the decay is
                             # decoupled, and TensorFlow configs carry 0.01-0.05 from there
COUPLED_FAMILY = {"Adam", "Adamax", "NAdam", "RAdam",   # normalise the gradient the decay
                  "RMSprop", "Adagrad", "Adadelta"}   # was added to (torch's and minigrad's
                             # class names: each adds weight_decay x w to the gradient, then
                             # divides by a running gradient magnitude; RMSprop at 0.5 from
                             # core variants 7); AdamW and decoupled groups are left out
SHRUNK = 0.8                 # [measured] a weight matrix whose norm fell to 80% of its first
                             # recorded value: the digits MLP with Adam and decay 0.05 falls to
                             # 61%, with 1e-4 it never goes below 97% (and then grows)
DROPOUT_LIMIT = 0.8          # [design] p from 0.8 up: keep probabilities of 0.8-0.9 written as
                             # p are the classic port from TensorFlow 1 (keep_prob); 0.5 is the
                             # classic high rate [srivastava], and rates above it are rare
STAYS_HIGH = 0.5             # [measured] the loss's last fifth still above half its start:
                             # the digits MLP with Dropout(0.9) ends at 83% of its start, with
                             # Dropout(0.1) at 39%
SHRINK_RECORDS = 3           # [design] records a weight norm is followed over
TRAIN_MODE_SHARE = 0.5       # [design] a dropout layer in train mode on more than half the
                             # training records counts as trained with


# --- weight decay added to Adam's gradient ---------------------------------------------------
def coupled_decays(settings):
    """The param groups of an Adam-family optimizer that add a weight decay of
    COUPLED_DECAY_LIMIT or more to the gradient (not decoupled)."""
    return [s for s in settings
            if s.type in COUPLED_FAMILY and not s.decoupled and
            s.weight_decay is not None and s.weight_decay >= COUPLED_DECAY_LIMIT]


def shrunk_weights(ctx):
    """{weight name: lowest norm / first norm} of the weight matrices whose norm fell to
    SHRUNK of their first recorded value or below (over SHRINK_RECORDS records or more)."""
    norms = ctx.matrix("param_norm")
    if norms.ndim != 2 or norms.shape[0] < SHRINK_RECORDS:
        return {}
    out = {}
    for index in ctx.weights:
        column = norms[:, index]
        first = column[0]
        later = column[1:][column[1:] == column[1:]]       # measured (not NaN) records
        if not first > 0 or later.size == 0:
            continue
        lowest = float(later.min()) / float(first)
        if lowest <= SHRUNK:
            out[ctx.run.params[index].name] = round(lowest, 3)
    return out


@rule(produces="COUPLED_WEIGHT_DECAY_TOO_LARGE",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def coupled_weight_decay_too_large(ctx):
    groups = coupled_decays(observed_list(ctx, "optimizer_settings"))
    if not groups:
        return None
    group = max(groups, key=lambda s: s.weight_decay)
    shrunk = shrunk_weights(ctx)
    poor = ctx.enough_steps and learning_poor(ctx)
    evidence = {"optimizer": group.type, "weight_decay": group.weight_decay,
                "groups": [s.group for s in groups], "lr": group.lr,
                "threshold": COUPLED_DECAY_LIMIT, "learning_poor": bool(poor),
                "shrunk_weights": shrunk, "shrunk_threshold": SHRUNK}
    seen = []
    if poor:
        seen.append("learning is poor")
    if shrunk:
        seen.append(f"the weights shrink ({short_list(list(shrunk))} fell to "
                    f"{min(shrunk.values()):.0%} of their first norm)")
    what = " and ".join(seen) if seen else "this run still learns, so only a note"
    return Finding(
        code="COUPLED_WEIGHT_DECAY_TOO_LARGE", severity="warning" if seen else "info",
        where=f"optimizer ({group.type}, param group {group.group})", step=ctx.first_step,
        message=f"{group.type} has weight_decay={group.weight_decay:g}, added to the gradient "
                f"before {group.type} normalises it (L2, not AdamW's decoupled decay). Where "
                "the decay term outweighs the loss's gradient each step becomes lr x "
                "sign(w), a fixed pull towards zero, and the weights settle where the pull "
                "balances the loss: "
                f"{what}. Decays of 0.01 or more are AdamW's (or a TensorFlow config's); L2 "
                f"with {group.type} is usually 0 to 5e-4.",
        evidence=evidence,
        fix="Use torch.optim.AdamW with this weight_decay (the decay is then decoupled from "
            f"the gradient), or keep {group.type} with a weight_decay around 1e-4.")


# --- a keep probability as the dropout rate --------------------------------------------------
def high_rates(ctx, settings):
    """The dropout settings with p >= DROPOUT_LIMIT whose layer was not in eval mode on most
    training records (a layer never trained with drops nothing)."""
    trained = [r for r in ctx.records if r.backward]
    out = []
    for s in settings:
        if s.p is None or s.p < DROPOUT_LIMIT:
            continue
        in_eval = sum(s.layer in r.eval_layers for r in trained)
        if trained and in_eval > TRAIN_MODE_SHARE * len(trained):
            continue
        out.append(s)
    return out


def loss_stays_high(ctx):
    """Whether the last fifth of the loss is still above STAYS_HIGH of its start."""
    s = ctx.summary
    return bool(ctx.enough_steps and s is not None and s["start"] > 0 and
                s["tail"] > STAYS_HIGH * s["start"])


def _scaling(p):
    return "" if p >= 1 else f" and scales the rest by {1 / (1 - p):.3g}"


@rule(produces="DROPOUT_RATE_TOO_HIGH",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "NO_GRADIENT"})
def dropout_rate_too_high(ctx):
    high = high_rates(ctx, observed_list(ctx, "dropout_settings"))
    if not high:
        return None
    layer = max(high, key=lambda s: s.p)
    poor = ctx.enough_steps and learning_poor(ctx)
    high_loss = loss_stays_high(ctx)
    s = ctx.summary
    evidence = {"layers": {d.layer: d.p for d in high}, "threshold": DROPOUT_LIMIT,
                "learning_poor": bool(poor), "loss_stays_high": high_loss,
                "loss_start": None if s is None else s["start"],
                "loss_tail": None if s is None else s["tail"]}
    seen = "learning is poor" if poor else \
        "the loss stays high" if high_loss else "this run still learns, so only a note"
    return Finding(
        code="DROPOUT_RATE_TOO_HIGH", severity="warning" if poor or high_loss else "info",
        where=layer.layer, step=ctx.first_step,
        message=f"{layer.type} {layer.layer} has p={layer.p:g}: p is the probability of "
                f"ZEROING a value, so it drops {layer.p:.0%} of its inputs on every training "
                f"step{_scaling(layer.p)}: {seen}. "
                f"A p of {layer.p:g} reads like a keep probability (TensorFlow 1's keep_prob) "
                "copied as the rate.",
        evidence=evidence,
        fix=f"If {layer.p:g} is the share to KEEP, use {layer.type}(p={1 - layer.p:.2g}); "
            "rates above 0.5 are rarely what is meant.")
