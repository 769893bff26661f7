"""Small models for the gradient-check tests: one per primitive of the bug catalogue,
healthy models that are hard for a checker (ReLU, max-pool, dropout, batch-norm,
float32, integer targets, embeddings), and torch layers with planted backward bugs.

Each builder returns ``(model, inputs, targets, loss_fn)``. Sizes are tiny so that
full finite differences stay cheap; layers are non-square so that a transposition
bug cannot hide.
"""
import numpy as np

import minigrad as mg
import minigrad.nn as mnn
from sequence_gradcheck_models import SEQUENCE_OPS, sequence_model_for

# --- minigrad: one model per catalogue op -------------------------------------------------


class _Lambda(mnn.Module):
    """A module around a function of (input, own parameter)."""

    def __init__(self, fn, param_shape=None, low=-1.0, high=1.0, seed=0):
        super().__init__()
        self.fn = fn
        if param_shape is not None:
            rng = np.random.default_rng(seed)
            self.p = mnn.Parameter(rng.uniform(low, high, size=param_shape).astype(np.float32))

    def forward(self, x):
        return self.fn(x, getattr(self, "p", None))


class _Residual(mnn.Module):
    """h is used twice: the engine must add both gradients."""

    def __init__(self, width):
        super().__init__()
        self.inner = mnn.Linear(width, width)

    def forward(self, x):
        h = self.inner(x)
        return h * h.tanh() + h


def _mlp_data(rng, n=6, d=5, classes=3):
    x = mg.tensor(rng.standard_normal((n, d)).astype(np.float32))
    y = mg.tensor(rng.integers(0, classes, n))
    return x, y


def _mlp(middle, d=5, hidden=7, classes=3):
    return mnn.Sequential(mnn.Linear(d, hidden), middle, mnn.Linear(hidden, classes))


def _image_data(rng, n=2, c=2, side=6, classes=3):
    x = mg.tensor(rng.standard_normal((n, c, side, side)).astype(np.float32))
    return x, mg.tensor(rng.integers(0, classes, n))


def _cnn(pool, flat, classes=3):
    return mnn.Sequential(mnn.Conv2d(2, 3, 3, padding=1), mnn.Tanh(), pool, mnn.Flatten(),
                          mnn.Linear(flat, classes))


def minigrad_model_for(op, seed=0):
    """A small minigrad model whose gradient goes through primitive ``op``."""
    rng = np.random.default_rng(seed)
    mg.manual_seed(seed)
    np.random.seed(seed)
    ce = mnn.CrossEntropyLoss()
    x, y = _mlp_data(rng)
    if op in ("matmul", "add", "cross_entropy"):
        return _mlp(mnn.Tanh()), x, y, ce
    if op in ("relu", "leaky_relu", "tanh", "sigmoid", "gelu"):
        act = {"relu": mnn.ReLU(), "leaky_relu": mnn.LeakyReLU(0.1), "tanh": mnn.Tanh(),
               "sigmoid": mnn.Sigmoid(), "gelu": mnn.GELU()}[op]
        return _mlp(act, hidden=12), x, y, ce
    if op == "mul":
        return _mlp(_Lambda(lambda h, p: h * p, (7,), 0.5, 1.5)), x, y, ce
    if op == "sub":
        return _mlp(_Lambda(lambda h, p: (h - p).tanh(), (7,))), x, y, ce
    if op == "div":
        return _mlp(_Lambda(lambda h, p: h / p, (7,), 1.0, 2.0)), x, y, ce
    if op == "pow":
        return _mlp(_Lambda(lambda h, p: (h + p) ** 3, (7,))), x, y, ce
    if op == "log":
        return _mlp(_Lambda(lambda h, p: (h.sigmoid() * p).log(), (7,), 0.5, 2.0)), x, y, ce
    if op == "sqrt":
        return _mlp(_Lambda(lambda h, p: (h * h + p).sqrt(), (7,), 0.5, 2.0)), x, y, ce
    if op == "softmax":
        return _mlp(mnn.Softmax(dim=1)), x, y, ce
    if op == "log_softmax":
        return mnn.Sequential(mnn.Linear(5, 3), mnn.LogSoftmax(dim=1)), x, y, mnn.NLLLoss()
    if op == "mean":
        return _mlp(_Lambda(lambda h, p: (h - h.mean(axis=1, keepdims=True)) * p, (7,))), x, y, ce
    if op == "max":
        return _mlp(_Lambda(lambda h, p: h * p + h.max(axis=1, keepdims=True), (7,))), x, y, ce
    if op == "getitem":
        columns = np.array([0, 1, 1, 2, 4, 4, 4])
        return _mlp(_Lambda(lambda h, p: h[:, columns] * p, (7,))), x, y, ce
    if op == "dropout":
        model = _mlp(mnn.Dropout(0.4), hidden=10)
        model.train()
        return model, x, y, ce
    if op == "layer_norm":
        return _mlp(mnn.LayerNorm(7)), x, y, ce
    if op == "batch_norm":
        model = _mlp(mnn.BatchNorm1d(7))
        model.train()
        return model, x, y, ce
    if op == "mse":
        target = mg.tensor(rng.standard_normal((6, 3)).astype(np.float32))
        return _mlp(mnn.Tanh()), x, target, mnn.MSELoss()
    if op == "bce_with_logits":
        target = mg.tensor(rng.integers(0, 2, (6, 3)).astype(np.float32))
        return _mlp(mnn.Tanh()), x, target, mnn.BCEWithLogitsLoss()
    if op == "embedding":
        ids = mg.tensor(np.array([[1, 3, 3], [0, 3, 1], [2, 2, 3], [4, 0, 3]]))
        model = mnn.Sequential(mnn.Embedding(6, 4), mnn.Flatten(), mnn.Linear(12, 3))
        return model, ids, mg.tensor(rng.integers(0, 3, 4)), ce
    if op in ("conv2d", "max_pool2d", "avg_pool2d"):
        xi, yi = _image_data(rng)
        pool = mnn.MaxPool2d(2) if op == "max_pool2d" else mnn.AvgPool2d(2)
        return _cnn(pool, 3 * 3 * 3), xi, yi, ce
    if op in SEQUENCE_OPS:
        return sequence_model_for(op, rng, x, y)
    if op == "engine":
        model = mnn.Sequential(mnn.Linear(5, 6), _Residual(6), mnn.Linear(6, 3))
        return model, x, y, ce
    raise KeyError(f"no test model uses primitive {op!r} yet: add one to "
                   "tests/gradcheck_models.py:minigrad_model_for")


# --- healthy models that are hard for a checker ------------------------------------------

def minigrad_healthy(kind, seed=0):
    rng = np.random.default_rng(seed)
    mg.manual_seed(seed)
    ce = mnn.CrossEntropyLoss()
    x, y = _mlp_data(rng)
    if kind == "relu":
        return _mlp(mnn.ReLU(), hidden=16), x, y, ce
    if kind == "maxpool":
        xi, yi = _image_data(rng)
        model = mnn.Sequential(mnn.Conv2d(2, 3, 3, padding=1), mnn.ReLU(), mnn.MaxPool2d(2),
                               mnn.Flatten(), mnn.Linear(27, 3))
        return model, xi, yi, ce
    if kind == "dropout":
        model = _mlp(mnn.Dropout(0.5), hidden=12)
        model.train()
        return model, x, y, ce
    if kind == "batchnorm":
        model = mnn.Sequential(mnn.Linear(5, 7), mnn.BatchNorm1d(7), mnn.ReLU(), mnn.Linear(7, 3))
        model.train()
        return model, x, y, ce
    if kind == "float32":
        return _mlp(mnn.Tanh()), x, y, ce
    if kind == "embedding":
        return minigrad_model_for("embedding", seed)
    if kind == "residual":
        return minigrad_model_for("engine", seed)
    raise KeyError(kind)


HEALTHY_KINDS = ("relu", "maxpool", "dropout", "batchnorm", "float32", "embedding", "residual")


def _torch_data(seed):
    """Seed torch and make the batch that torch_healthy and torch_buggy both start from."""
    import torch

    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(6, 5, generator=g)
    y = torch.randint(0, 3, (6,), generator=g)
    return g, x, y


def torch_healthy(kind, seed=0):
    import torch
    import torch.nn as nn

    g, x, y = _torch_data(seed)
    ce = nn.CrossEntropyLoss()
    if kind == "relu":
        return nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3)), x, y, ce
    if kind == "maxpool":
        xi = torch.randn(2, 2, 6, 6, generator=g)
        model = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(inplace=True),
                              nn.MaxPool2d(2), nn.Flatten(), nn.Linear(27, 3))
        return model, xi, torch.randint(0, 3, (2,), generator=g), ce
    if kind == "dropout":
        model = nn.Sequential(nn.Linear(5, 12), nn.Dropout(0.5), nn.Linear(12, 3))
        model.train()
        return model, x, y, ce
    if kind == "batchnorm":
        model = nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.ReLU(), nn.Linear(7, 3))
        model.train()
        return model, x, y, ce
    if kind == "float32":
        return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3)), x, y, ce
    if kind == "embedding":
        ids = torch.tensor([[1, 3, 3], [0, 3, 1], [2, 2, 3], [4, 0, 3]])
        model = nn.Sequential(nn.Embedding(6, 4), nn.Flatten(), nn.Linear(12, 3))
        return model, ids, torch.randint(0, 3, (4,), generator=g), ce
    if kind == "residual":
        return TorchResidual(), x, y, ce
    raise KeyError(kind)


def _torch_residual_class():
    import torch.nn as nn

    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Linear(5, 6)
            self.inner = nn.Linear(6, 6)
            self.out = nn.Linear(6, 3)

        def forward(self, x):
            h = self.inp(x)
            return self.out(h + self.inner(h).tanh())

    return Residual


def TorchResidual():
    return _torch_residual_class()()


# --- torch layers with planted backward bugs ------------------------------------------------

def torch_buggy(kind, seed=0):
    """(model, x, y, loss_fn, name of the faulty module) for one planted torch bug."""
    import torch.nn as nn

    _, x, y = _torch_data(seed)
    ce = nn.CrossEntropyLoss()
    layer = {"transposed_weight": _BadLinear, "wrong_derivative": _BadTanh,
             "late_elements": _LateBug, "dropped_skip": _BadSkip,
             "dropout_not_rescaled": _BadDropout, "wrong_route": _BadMax}[kind]()
    if kind == "transposed_weight":
        model = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), layer, nn.Tanh(), nn.Linear(4, 3))
        return model, x, y, ce, "2"
    if kind == "wrong_route":
        model = nn.Sequential(nn.Linear(5, 8), layer, nn.Linear(4, 3))
        return model, x, y, ce, "1"
    model = nn.Sequential(nn.Linear(5, 8), layer, nn.Linear(8, 3))
    if kind == "dropout_not_rescaled":
        model.train()
    return model, x, y, ce, "1"


def _functions():
    import torch

    class LinearFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b):
            ctx.save_for_backward(x, w)
            return x @ w.t() + b

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            # bug: dW = (x^T g) reshaped instead of g^T x - same numbers, wrong layout
            return g @ w, (x.t() @ g).reshape(w.shape), g.sum(0)

    class TanhFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = torch.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * (1 - y)           # bug: 1 - y instead of 1 - y^2

    class LateFn(torch.autograd.Function):
        """Softsign x / (1 + |x|); the derivative is right for the first 5 elements only."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x / (1 + x.abs())

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            local = 1 / (1 + x.abs()) ** 2
            flat = local.reshape(-1).clone()
            flat[5:] = 1 / (1 + x.abs().reshape(-1)[5:])   # bug: not squared past index 5
            return g * flat.reshape(x.shape)

    class SkipFn(torch.autograd.Function):
        """x + sin(x); the backward forgets the identity path."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x + torch.sin(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.cos(x)      # bug: should be g * (1 + cos x)

    class DropoutFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, p):
            mask = (torch.rand_like(x) >= p).to(x.dtype)
            ctx.save_for_backward(mask)
            return x * mask / (1 - p)

        @staticmethod
        def backward(ctx, g):
            (mask,) = ctx.saved_tensors
            return g * mask, None        # bug: the 1/(1-p) scale is missing

    class PairMaxFn(torch.autograd.Function):
        """Max of neighbouring pairs (a 1-D max-pool of width 2)."""

        @staticmethod
        def forward(ctx, x):
            pairs = x.reshape(x.shape[0], -1, 2)
            values, winner = pairs.max(dim=2)
            ctx.save_for_backward(winner)
            ctx.shape = pairs.shape
            return values

        @staticmethod
        def backward(ctx, g):
            (winner,) = ctx.saved_tensors
            grad = torch.zeros(ctx.shape, dtype=g.dtype)
            grad.scatter_(2, (1 - winner).unsqueeze(2), g.unsqueeze(2))   # bug: the loser
            return grad.reshape(ctx.shape[0], -1)

    return LinearFn, TanhFn, LateFn, SkipFn, DropoutFn, PairMaxFn


def _module(fn_index, *, params=None):
    import torch
    import torch.nn as nn

    fns = _functions()

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            if params:
                self.weight = nn.Parameter(torch.randn(*params[0]) * 0.4)
                self.bias = nn.Parameter(torch.randn(params[1]) * 0.1)

        def forward(self, x):
            if params:
                return fns[fn_index].apply(x, self.weight, self.bias)
            if fn_index == 4:
                return fns[4].apply(x, 0.4) if self.training else x
            return fns[fn_index].apply(x)

    Layer.__name__ = ["BadLinear", "BadTanh", "LateSoftsign", "BadSkip", "BadDropout",
                      "BadPairMax"][fn_index]
    return Layer()


def _BadLinear():
    return _module(0, params=((4, 6), 4))


def _BadTanh():
    return _module(1)


def _LateBug():
    return _module(2)


def _BadSkip():
    return _module(3)


def _BadDropout():
    return _module(4)


def _BadMax():
    return _module(5)


TORCH_BUGS = ("transposed_weight", "wrong_derivative", "late_elements", "dropped_skip",
              "dropout_not_rescaled", "wrong_route")
