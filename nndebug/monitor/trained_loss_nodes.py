"""Which kinds of loss the back-propagated loss is made of (``run.observed.trained_loss_nodes``;
LOSSES_NOT_BACKPROPAGATED, ``rules/discarded_losses.py``, real-bug batch 72).

A loss assembled from weighted terms can compute a term and never add it: a typo in the
condition that adds the label loss (gated on the IMAGE loss's weight, DeepRegNet/DeepReg#624)
leaves a regulariser alone in the total. The classification loss is still called every step
on the model's output - the loss capture sees the call, and backward still reaches that
output through the regulariser, so ``discarded_losses.py``, which watches the call's INPUT,
counts it as reached - but nothing the stepped loss is made of is a loss of any known kind.

Read off the loss's graph (the shared walk, ``graph_walks.LossGraph``), on the first
``TRAINED_LOSS_WALK_STEPS`` recorded steps only: whether any node of the stepped loss's graph
is a loss function's backward (NLL, MSE, L1, BCE, KL, margins, CTC, ...) or a log-likelihood
(log_softmax, log, log_sigmoid: a cross-entropy written by hand). One type-name look-up per
node of a walk that is done anyway; nothing after the first steps.
"""
from .graph_walks import FirstStepsReader

TRAINED_LOSS_WALK_STEPS = 3      # [design] recorded steps walked (a loop's loss has one form)
TRAINED_LOSS_NODES = frozenset({   # [design] backward nodes of torch's loss functions
    "NllLossBackward0", "NllLoss2DBackward0", "NllLossNdBackward0", "MseLossBackward0",
    "L1LossBackward0", "SmoothL1LossBackward0", "HuberLossBackward0",
    "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0", "KlDivBackward0",
    "SoftMarginLossBackward0", "MultiMarginLossBackward0", "MultilabelMarginLossBackward0",
    "CtcLossBackward0", "CtcLossBackward1", "MarginRankingLossBackward0",
    "HingeEmbeddingLossBackward0", "CosineEmbeddingLossBackward0", "TripletMarginLossBackward0",
    "PoissonNllLossBackward0", "GaussianNllLossBackward0",
    # a log-likelihood written by hand: a log of probabilities somewhere in the loss
    "LogSoftmaxBackward0", "LogBackward0", "LogSigmoidBackward0", "Log1PBackward0",
    "XlogyBackward0", "SpecialXlog1PyBackward0"})


class TrainedLossNodes(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: keeps (step, whether the stepped loss holds a
    loss function's or a log-likelihood's node)."""
    steps = TRAINED_LOSS_WALK_STEPS

    def keep(self, step, nodes):
        found = any(type(node).__name__ in TRAINED_LOSS_NODES for node in nodes)
        self.observed.trained_loss_nodes.append((step, found))
