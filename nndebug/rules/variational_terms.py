"""ELBO_KL_OVERWEIGHTED: a Bayesian network whose KL term outweighs its likelihood, so it
learns the prior instead of the data.

Bayes by backprop keeps each weight as a mean and a spread (``weight_mu``, ``weight_rho``)
and minimises the negative ELBO: the data's negative log-likelihood plus the KL divergence
of the weights' posterior from the prior. Summed over the training set the KL counts once;
next to a likelihood averaged per example it must be divided by the number of training
examples. Left whole (or divided by the number of batches) it is hundreds of times the
data term, and the cheapest way down is to make every weight the prior: the predictions
become a uniform guess while the loss falls steadily, from the KL alone, and nothing looks
broken. Public reports: google/edward2#474 (an LSTM's KL not scaled by the training size),
and the Bayes-by-backprop cases of real-bug batches 141 and 193
(bnn_kl_added_unweighted_to_mean_likelihood, bnn_kl_divided_by_batch_count_with_mean_
likelihood, bayesian_lstm_kl_not_divided_by_training_size): held-out accuracy 0.07-0.11
against 0.90-0.93 for the scaled ELBO.

Read from the run: trainable weights that come in (mean, spread) pairs of one shape, a
class-index loss among the recorded loss calls, the model's outputs in the run's last half
a near-uniform guess (``guess_entropy``), and the loss's last fifth at least KL_DOMINANCE
times the class loss's chance level ln(C): whatever sits on top of the class loss is far
larger than the class loss can be.
"""
import math
import re

from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, judged_loss_calls
from .curve import CHANCE_MIN_GUESS_ENTROPY, guess_entropy
from .graph import rule

KL_DOMINANCE = 50.0     # [measured] the loss's last fifth over ln(C): Bayes-by-backprop twins
                        # with the KL scaled per example 2.6-8.1, a KL of a log-variance read
                        # as a log-std (still learning, accuracy 0.93) 16.1; the KL left whole
                        # or per batch 196-1869 (bnn_* and bayesian_lstm_* cases)
MIN_PAIRED_SHARE = 0.5  # [design] of the trainable weights (2-D and more) that have a spread
                        # partner: a Bayesian network, not one stray parameter named ``mu``
MIN_CLASS_CALLS = 3     # [design] judged class-index loss calls: the class loss is the data term
MEAN_NAMES = ("mu", "mean", "loc")
SPREAD_NAMES = ("rho", "sigma", "log_sigma", "logsigma", "log_std", "logstd", "logvar",
                "log_var", "scale")


def paired_weights(run):
    """The names of the trainable weights that have a spread partner of the same shape
    (``layer.weight_mu`` with ``layer.weight_rho``), and the number of trainable weights."""
    shapes = {p.name: tuple(p.shape) for p in run.params if p.trainable}
    weights = [name for name, shape in shapes.items() if len(shape) >= 2]
    paired = []
    for name in weights:
        head, _, leaf = name.rpartition(".")
        for mean in MEAN_NAMES:
            pattern = rf"(^|_){mean}($|_)"
            if not re.search(pattern, leaf):
                continue
            partners = [(f"{head}." if head else "") +
                        re.sub(pattern, rf"\g<1>{spread}\g<2>", leaf, count=1)
                        for spread in SPREAD_NAMES]
            if any(shapes.get(partner) == shapes[name] for partner in partners):
                paired.append(name)
                break
    return paired, len(weights)


@rule(produces="ELBO_KL_OVERWEIGHTED")
def elbo_kl_overweighted(ctx):
    s = ctx.summary
    if s is None or not ctx.enough_steps or not ctx.classes or ctx.classes < 2:
        return None
    calls = judged_loss_calls(ctx, CLASS_INDEX_LOSSES)
    if len(calls) < MIN_CLASS_CALLS:
        return None
    chance = math.log(ctx.classes)
    if s["tail"] < KL_DOMINANCE * chance:
        return None
    entropy = guess_entropy(ctx)
    if entropy is None or entropy < CHANCE_MIN_GUESS_ENTROPY:
        return None
    paired, weights = paired_weights(ctx.run)
    if not paired or len(paired) < MIN_PAIRED_SHARE * weights:
        return None
    return Finding(
        code="ELBO_KL_OVERWEIGHTED", severity="warning", where=paired[0],
        step=int(ctx.curve_steps[0]),
        message=f"The model's weights are distributions ({len(paired)} mean/spread pairs, "
                f"e.g. {paired[0]}) and its predictions are a uniform guess (entropy "
                f"{entropy:.0%} of ln {ctx.classes}), while the loss it minimises ends at "
                f"{s['tail']:.4g}, {s['tail'] / chance:.0f} times what the class loss "
                f"({calls[0].loss}) is at chance: another term - the KL divergence of the "
                "weights from their prior - outweighs the likelihood, and the network "
                "learns the prior instead of the data.",
        evidence={"paired_weights": paired[:8], "loss_tail": s["tail"],
                  "chance_level": chance, "tail_over_chance": s["tail"] / chance,
                  "guess_entropy": entropy, "class_loss": calls[0].loss},
        fix="Weight the KL per training example: loss = nll_mean + kl / len(train_set) (or "
            "sum the NLL over the training set); check the KL is KL(posterior || prior) and "
            "its sign is +; a KL warm-up from 0 helps the likelihood get a start.")
