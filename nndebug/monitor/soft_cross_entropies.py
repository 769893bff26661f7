"""Cross-entropies against soft targets written by hand (torch):
``-(target * F.log_softmax(scores, -1)).sum(-1).mean()``.

A cross-entropy against a distribution t is lowest when the prediction equals t, and its
lowest value is t's own entropy, H(t) = -sum t log t, not 0. Against one-hot labels that is
0; against a teacher's softened answer, a smoothed label, or a ranking list's graded
relevances it can be most of the starting loss: a listwise softmax loss whose targets are
labels in proportion (label / sum(labels)) started at 2.98 with a floor of 2.89, learned the
ranking (NDCG@10 0.90) and fell 3% - read as LOSS_PLATEAU (real-bug batch 192, the twin of
softmax_ranking_loss_fed_rank_numbers_as_labels). A loss function with soft targets
(``F.cross_entropy(scores, probs)``, ``F.kl_div``) is seen by the loss capture; written out
by hand it showed nothing.

While a step is recorded the attention capture's function mode (``attention_capture.py``)
hands this module each ``log_softmax`` result and each product: a product of a kept
log-softmax result (with a gradient) and a floating tensor of its shape without one is a
soft cross-entropy's core. Its target's entropy sum, its cross-entropy sum and its smallest
target value are reduced where the tensors live and ride along with the step's one host
transfer. ``run.observed.soft_cross_entropies`` gets (step, entropy sum, cross-entropy
sum, smallest target) for the first ``PRODUCTS_PER_STEP`` products of each recorded step,
``ROWS_KEPT`` rows at most: the loss's floor is its value times their entropy share
(``rules.curve.entropy_floor``).
"""
LOG_SOFTMAXES_KEPT = 8     # [design] log-softmax results kept per step to match products
                           # against (a model's loss makes one or two)
PRODUCTS_PER_STEP = 4      # [design] soft cross-entropies kept per step
ROWS_KEPT = 64             # [design] rows kept at most: memory stays bounded on long runs


class SoftCrossEntropies:
    def __init__(self, observed):
        self.observed = observed
        self.log_probs = []       # this step's log-softmax results (with a gradient)
        self.found = []           # [(target, log-probabilities)] of this step, detached

    def arm(self):
        self.log_probs, self.found = [], []

    def disarm(self):
        self.log_probs = []       # ``found`` waits for the step's transfer

    def on_log_softmax(self, result):
        if len(self.log_probs) < LOG_SOFTMAXES_KEPT and getattr(result, "requires_grad", False):
            self.log_probs.append(result)

    def on_product(self, args):
        """A product seen by the function mode; True when it was a soft cross-entropy's."""
        if len(args) < 2 or not self.log_probs or len(self.found) >= PRODUCTS_PER_STEP:
            return False
        for log_prob, target in ((args[0], args[1]), (args[1], args[0])):
            if any(log_prob is kept for kept in self.log_probs) and \
                    _soft_target(target, log_prob):
                self.found.append((target.detach(), log_prob.detach()))
                return True
        return False

    def pack(self, packet):
        if not self.found:
            return
        import torch
        for index, (target, log_prob) in enumerate(self.found):
            t = target.float()
            packet.add(("soft_ce", index, "entropy"), -torch.special.xlogy(t, t).sum())
            packet.add(("soft_ce", index, "cross"), -(t * log_prob.float()).sum())
            packet.add(("soft_ce", index, "lowest"), t.amin())

    def take(self, values, record):
        found, self.found = self.found, []
        rows = self.observed.soft_cross_entropies
        for index in range(len(found)):
            read = [values.get(("soft_ce", index, stat)) for stat in ("entropy", "cross",
                                                                       "lowest")]
            if any(v is None for v in read) or len(rows) >= ROWS_KEPT:
                continue
            rows.append((int(record.step), *(float(v[0]) for v in read)))


def _soft_target(target, log_prob):
    """Whether ``target`` can be a soft cross-entropy's target for ``log_prob``: a floating
    tensor of the same shape (two values or more) that takes no gradient."""
    import torch
    return (isinstance(target, torch.Tensor) and target.is_floating_point() and
            not target.requires_grad and tuple(target.shape) == tuple(log_prob.shape) and
            target.numel() >= 2)
