"""A bug hunt: train a small model on the digits with a planted bug, next to a clean twin.

``pick(seed)`` chooses a bug and a model the bug really affects, from the seed
alone (so ``nndebug bugs hunt --seed N`` needs no saved state). ``train`` runs a
few hundred steps of SGD on the 8x8 digits and returns what a learner would
look at: the loss curve and the test accuracy. The command line
(``nndebug bugs hunt``) puts both runs side by side and adds nndebug's checks.

The models are deliberately varied - plain MLPs, normalisation, a residual
block, small CNNs, embeddings, hand-written layers from elementary ops, several
losses - so that every bug of the catalogue has a model on which it shows.
"""
import contextlib
import dataclasses
import importlib.resources
from typing import Callable

import numpy as np

from .. import autograd, nn
from ..nn import functional as F
from ..random import get_rng_state, manual_seed, set_rng_state
from ..tensor import Tensor, tensor
from . import ENGINE, catalogue, plant

CLASSES = 10
TEST_SIZE = 300
BATCH = 64


# --- the data ------------------------------------------------------------------

def load_digits():
    """(images, labels): 1797 8x8 digits, pixels as integers 0..16, labels 0..9."""
    try:
        from ..data import load_digits as loader
    except ImportError:  # an older minigrad without the data module: read the file itself
        with importlib.resources.files("minigrad").joinpath("data/digits.npz").open("rb") as f:
            stored = np.load(f)
            return stored["images"].astype(np.int64), stored["labels"].astype(np.int64)
    images, labels = loader(scale=False, dtype=np.int64)
    return images.reshape(len(images), -1), labels


@dataclasses.dataclass
class Digits:
    """Train/test split, fixed (independent of the hunt's seed) so runs compare."""

    pixels_train: np.ndarray   # integers 0..16, for the embedding models
    pixels_test: np.ndarray
    x_train: np.ndarray        # floats scaled to [-1, 1], for everything else
    x_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray


def split_digits():
    images, labels = load_digits()
    order = np.random.default_rng(0).permutation(len(labels))
    test, train = order[:TEST_SIZE], order[TEST_SIZE:]
    scaled = (images / 8.0 - 1.0).astype(np.float32)
    return Digits(images[train], images[test], scaled[train], scaled[test],
                  labels[train], labels[test])


# --- layers written out of elementary ops (so those ops are in the model) --------

class HandWrittenNorm(nn.Module):
    """Layer normalisation spelled out: mean, sub, pow, sqrt, div, and a broadcast scale."""

    def __init__(self, features):
        super().__init__()
        self.gain = nn.Parameter(np.ones(features, dtype=np.float32))
        self.shift = nn.Parameter(np.zeros(features, dtype=np.float32))

    def forward(self, h):
        centred = h - h.mean(axis=-1, keepdims=True)
        spread = ((centred ** 2).mean(axis=-1, keepdims=True) + 1e-5).sqrt()
        return centred / spread * self.gain + self.shift


class Maxout(nn.Module):
    """Keep the largest of every ``pieces`` consecutive features."""

    def __init__(self, pieces=2):
        super().__init__()
        self.pieces = pieces

    def forward(self, h):
        return h.reshape(h.shape[0], -1, self.pieces).max(axis=-1)


class Residual(nn.Module):
    """h + relu(linear(h)): h is used twice, so its gradients must add up."""

    def __init__(self, features):
        super().__init__()
        self.inner = nn.Linear(features, features)

    def forward(self, h):
        return h + self.inner(h).relu()


class ToImage(nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], 1, 8, 8)


class PixelEmbedding(nn.Module):
    """Each of the 64 pixels' intensity (0..16) looked up in a learned table, then flattened."""

    def __init__(self, dim, by_indexing=False):
        super().__init__()
        self.by_indexing = by_indexing
        if by_indexing:   # a learner's first embedding: index a Parameter directly
            self.table = nn.Parameter(np.random.default_rng(1).normal(0, 1, (17, dim)).astype(np.float32))
        else:
            self.embed = nn.Embedding(17, dim)

    def forward(self, pixels):
        ids = pixels.data if isinstance(pixels, Tensor) else np.asarray(pixels)
        vectors = self.table[ids] if self.by_indexing else self.embed(tensor(ids))
        return vectors.reshape(ids.shape[0], -1)


# --- the losses --------------------------------------------------------------------

def _labels(target):
    return target.data if isinstance(target, Tensor) else np.asarray(target)


def cross_entropy(output, target):
    return F.cross_entropy(output, target)


def nll_of_probabilities(output, target):
    """-mean log p[y], written by hand on softmax probabilities."""
    y = _labels(target)
    return -(output.log()[np.arange(len(y)), y]).mean()


def nll_of_log_probabilities(output, target):
    y = _labels(target)
    return -(output[np.arange(len(y)), y]).mean()


def _one_hot(target, dtype):
    return tensor(np.eye(CLASSES, dtype=dtype)[_labels(target)])


def one_vs_rest_bce(output, target):
    return F.binary_cross_entropy_with_logits(output, _one_hot(target, output.dtype))


def one_hot_mse(output, target):
    return F.mse_loss(output, _one_hot(target, output.dtype))


# --- the models --------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class HuntModel:
    """A model family the hunt can train: how to build it, its loss, its inputs, its lr."""

    key: str
    title: str
    build: Callable
    loss_fn: Callable
    lr: float = 0.05
    pixels: bool = False        # integer pixel ids instead of scaled floats


def _mlp(middle):
    """64 -> 32 -> 10 with the layers ``middle()`` makes in between (fresh ones every build)."""
    return lambda: nn.Sequential(nn.Linear(64, 32), *middle(), nn.Linear(32, CLASSES))


MODELS = [
    HuntModel("relu-mlp", "MLP with ReLU, cross-entropy loss",
              _mlp(lambda: [nn.ReLU()]), cross_entropy),
    HuntModel("tanh-layernorm-mlp", "MLP with LayerNorm, tanh and dropout",
              _mlp(lambda: [nn.LayerNorm(32), nn.Tanh(), nn.Dropout(0.1)]), cross_entropy),
    HuntModel("gelu-batchnorm-mlp", "MLP with BatchNorm and GELU",
              _mlp(lambda: [nn.BatchNorm1d(32), nn.GELU()]), cross_entropy),
    HuntModel("residual-mlp", "MLP with a residual block",
              _mlp(lambda: [nn.ReLU(), Residual(32)]), cross_entropy),
    HuntModel("maxpool-cnn", "small CNN: conv, ReLU, max pooling",
              lambda: nn.Sequential(ToImage(), nn.Conv2d(1, 6, 3, padding=1), nn.ReLU(),
                                    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(96, CLASSES)),
              cross_entropy),
    HuntModel("avgpool-cnn", "small CNN: conv, sigmoid, average pooling",
              lambda: nn.Sequential(ToImage(), nn.Conv2d(1, 6, 3, padding=1), nn.Sigmoid(),
                                    nn.AvgPool2d(2), nn.Flatten(), nn.Linear(96, CLASSES)),
              cross_entropy, lr=0.2),
    HuntModel("softmax-nll-mlp", "MLP ending in softmax, hand-written log-likelihood",
              lambda: nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, CLASSES),
                                    nn.Softmax(dim=1)),
              nll_of_probabilities, lr=0.1),
    HuntModel("handwritten-norm-maxout", "MLP with a hand-written normalisation, maxout and "
              "leaky ReLU, log-softmax likelihood",
              lambda: nn.Sequential(nn.Linear(64, 64), HandWrittenNorm(64), Maxout(2),
                                    nn.LeakyReLU(0.1), nn.Linear(32, CLASSES),
                                    nn.LogSoftmax(dim=1)),
              nll_of_log_probabilities),
    HuntModel("pixel-embedding", "pixel intensities through nn.Embedding, then an MLP",
              lambda: nn.Sequential(PixelEmbedding(3), nn.Linear(192, 32), nn.Tanh(),
                                    nn.Linear(32, CLASSES)), cross_entropy, pixels=True),
    HuntModel("pixel-lookup-table", "pixel intensities through a hand-indexed lookup table",
              lambda: nn.Sequential(PixelEmbedding(3, by_indexing=True), nn.Linear(192, 32),
                                    nn.ReLU(), nn.Linear(32, CLASSES)), cross_entropy,
              pixels=True),
    HuntModel("bce-mlp", "MLP trained one-vs-rest with BCE-with-logits",
              _mlp(lambda: [nn.ReLU()]), one_vs_rest_bce, lr=0.5),
    HuntModel("mse-mlp", "MLP regressing one-hot targets with MSE",
              _mlp(lambda: [nn.Tanh()]), one_hot_mse, lr=0.5),
]


def model(key):
    for m in MODELS:
        if m.key == key:
            return m
    raise KeyError(f"no hunt model {key!r}; known: {', '.join(m.key for m in MODELS)}")


def inputs_of(hunt_model, digits, train=True):
    if hunt_model.pixels:
        return digits.pixels_train if train else digits.pixels_test
    return digits.x_train if train else digits.x_test


@contextlib.contextmanager
def _seeded(seed):
    """Run the block with minigrad's generator seeded; put the caller's state back after."""
    state = get_rng_state()
    manual_seed(seed)
    try:
        yield
    finally:
        set_rng_state(state)


def build(hunt_model, seed):
    """The model with seeded initial weights; minigrad's RNG state is left as it was."""
    with _seeded(seed):
        return hunt_model.build()


def ops_of(hunt_model, digits):
    """Names of the primitives one forward + loss of this model runs."""
    built = build(hunt_model, 0)
    seen = set()
    x, y = inputs_of(hunt_model, digits)[:8], digits.y_train[:8]
    with _seeded(0), autograd.observe_ops(lambda record: seen.add(record.name)):
        hunt_model.loss_fn(built(tensor(x)), tensor(y))
    return seen


def _parameter_gradients(built, hunt_model, x, y):
    built.zero_grad()
    with _seeded(0):   # the same dropout mask for both runs
        hunt_model.loss_fn(built(tensor(x)), tensor(y)).backward()
    return [np.zeros(p.shape) if p.grad is None else p.grad.astype(np.float64)
            for p in built.parameters()]


def shows_bug(hunt_model, bug, digits, threshold=1e-3):
    """Whether planting ``bug`` changes this model's parameter gradients on one batch."""
    if bug.op != ENGINE and bug.op not in ops_of(hunt_model, digits):
        return False
    built = build(hunt_model, 0)
    x, y = inputs_of(hunt_model, digits)[:BATCH], digits.y_train[:BATCH]
    clean = _parameter_gradients(built, hunt_model, x, y)
    with plant(bug.name):
        planted = _parameter_gradients(built, hunt_model, x, y)
    change = max(float(np.abs(a - b).max()) for a, b in zip(clean, planted))
    size = max(float(np.abs(a).max()) for a in clean)
    return change > threshold * max(size, 1e-12)


@dataclasses.dataclass(frozen=True)
class Pick:
    seed: int
    bug: object
    model: HuntModel


def pick(seed, digits=None):
    """The bug and the model of hunt ``seed``; only a model the bug visibly affects is chosen."""
    digits = digits or split_digits()
    rng = np.random.default_rng(seed)
    bugs = catalogue()
    start = int(rng.integers(len(bugs)))
    for offset in range(len(bugs)):          # a bug no model shows is skipped (none today)
        bug = bugs[(start + offset) % len(bugs)]
        showing = [m for m in MODELS if shows_bug(m, bug, digits)]
        if showing:
            return Pick(seed, bug, showing[int(rng.integers(len(showing)))])
    raise RuntimeError("no bug of the catalogue shows on any hunt model")


# --- training ----------------------------------------------------------------------

@dataclasses.dataclass
class Run:
    losses: list            # one per step; stops early at the first non-finite loss
    test_accuracy: float
    train_accuracy: float

    @property
    def blew_up(self):
        return bool(self.losses) and not np.isfinite(self.losses[-1])


def accuracy(built, hunt_model, x, y):
    was_training = built.training
    built.eval()
    try:
        with autograd.no_grad():
            out = built(tensor(x)).data
    finally:
        built.train(was_training)
    return float((out.argmax(axis=1) == y).mean())


def train(hunt_model, digits, steps=300, seed=0, bug=None, momentum=0.9):
    """SGD with momentum for ``steps`` steps, with ``bug`` planted (a name) or not.

    Initial weights and batch order depend only on ``seed``, so a run with the
    bug and one without differ by the bug alone. minigrad's RNG is restored.
    """
    built = build(hunt_model, seed)
    x_all, y_all = inputs_of(hunt_model, digits), digits.y_train
    batches = np.random.default_rng(seed)
    velocity = [np.zeros(p.shape, dtype=p.dtype) for p in built.parameters()]
    losses = []
    with _seeded(seed), (plant(bug) if bug else contextlib.nullcontext()), np.errstate(all="ignore"):
        for _ in range(steps):
            rows = batches.integers(0, len(y_all), BATCH)
            built.zero_grad()
            loss = hunt_model.loss_fn(built(tensor(x_all[rows])), tensor(y_all[rows]))
            value = float(loss.item())
            losses.append(value)
            if not np.isfinite(value):
                break
            loss.backward()
            with autograd.no_grad():
                for p, v in zip(built.parameters(), velocity):
                    if p.grad is not None:
                        v *= momentum
                        v += p.grad
                        p.data -= hunt_model.lr * v
    with np.errstate(all="ignore"):
        test = accuracy(built, hunt_model, inputs_of(hunt_model, digits, train=False), digits.y_test)
        trained = accuracy(built, hunt_model, x_all[:TEST_SIZE], y_all[:TEST_SIZE])
    return Run(losses, test, trained), built


def resolve_guess(guess):
    """('bug', Bug) for a bug name, ('op', name) for an op some bug plants into, else None."""
    bugs = catalogue()
    for bug in bugs:
        if bug.name == guess:
            return "bug", bug
    if guess in {bug.op for bug in bugs}:
        return "op", guess
    return None


__all__ = ["MODELS", "pick", "train", "split_digits", "shows_bug", "ops_of", "resolve_guess", "build"]

# sequence models (digits read row by row, and MLPs for the sequence bugs) live in their own
# file, which builds on the pieces above
from .sequence_hunt import sequence_models  # noqa: E402
MODELS.extend(sequence_models())
