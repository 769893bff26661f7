"""The size sweep's training step in other autograd engines: HIPS autograd, mygrad, tinygrad.

``bench_train_sweep.py`` times minigrad against torch; this file lets it also time the engines
people compare minigrad with, on the same step: the same MLP or CNN, torch's initial weights
(copied in), the same batch, cross-entropy loss, backward, a plain SGD update with the same
learning rate. None of these engines is a dependency of the project: each is imported only
inside ``build_peer``, in a child process of the sweep, so one that is missing or breaks costs a
"-" in the table and nothing else (install them with ``make bench-peers``).

Each engine is written the way its own documentation trains a model:

* HIPS autograd is functional: ``value_and_grad(loss)(params)`` returns the loss and fresh
  gradients (nothing to zero), and the update is NumPy arithmetic on the weight arrays. It has
  no convolution layer, so the CNN's 3x3 convolution is written here with im2col in
  ``autograd.numpy`` (nine shifted views of the padded input, one matmul), which is how a NumPy
  user would write it.
* mygrad records operations on its ``Tensor``; ``backward`` sets each ``.grad`` afresh (again
  nothing to zero), the update writes into ``.data``; ``conv_nd`` and ``max_pool`` are its own.
  Its linear weights are held as (in, out), the layout of mygrad's dense layers.
* tinygrad builds a lazy graph and compiles kernels (its CPU backend compiles C with clang).
  The step runs under ``TinyJit``, as tinygrad's examples train: the first calls capture the
  kernels, later calls replay them. Its optimizer and ``Tensor.conv2d`` are its own.

Only the MLP and the CNN kinds are written for the peers (``BUILT``); the GPT and LSTM rows show
"-" for them.
"""
import numpy as np

VERSIONS = {"autograd": "1.9.1", "mygrad": "2.5.0", "tinygrad": "0.14.0"}   # make bench-peers
PEERS = tuple(VERSIONS)
BUILT = {"autograd": ("mlp", "cnn"), "mygrad": ("mlp", "cnn"), "tinygrad": ("mlp", "cnn")}
LR = 0.01   # the sweep's SGD learning rate (bench_train_sweep.build)

# tinygrad reads these when it is imported: the CPU device, and one thread for its kernels.
TINYGRAD_ENV = {"DEV": "CPU", "NUM_CPU_THREADS": "1"}


def layer_pairs(weights):
    """torch's state dict of a Sequential, as [(weight, bias), ...] in layer order.

    The keys are "<layer index>.weight" / "<layer index>.bias"; activations, pooling and
    flatten have no weights, so the pairs are the Linear and Conv2d layers in order."""
    indices = sorted({int(key.split(".")[0]) for key in weights}, key=int)
    return [(weights[f"{i}.weight"], weights[f"{i}.bias"]) for i in indices]


def kinds_written(engine):
    """The model kinds whose step is written for ``engine``; a clear error for an unknown one."""
    if engine not in BUILT:
        raise ValueError(f"unknown engine {engine!r}: expected one of {', '.join(PEERS)}")
    return BUILT[engine]


def build_peer(engine, kind, weights, x, y):
    """One training step of ``kind`` ("mlp" or "cnn") in ``engine``; the step returns the loss.

    ``weights``: torch's initial state dict as NumPy arrays; ``x``, ``y``: the batch (float32
    inputs, integer class labels)."""
    if kind not in kinds_written(engine):
        raise ValueError(f"{engine}: the {kind!r} step is not written here (written: "
                         f"{', '.join(BUILT[engine])})")
    pairs = [(w.astype(np.float32).copy(), b.astype(np.float32).copy())
             for w, b in layer_pairs(weights)]
    return {"autograd": _autograd_step, "mygrad": _mygrad_step,
            "tinygrad": _tinygrad_step}[engine](kind, pairs, x, y)


# --- HIPS autograd ---------------------------------------------------------------------------

def _autograd_conv3x3(anp, x, weight, bias):
    """3x3 convolution, padding 1, stride 1, by im2col: the nine shifted views of the padded
    input stacked as (N, C*9, H*W) columns, times the weight as an (O, C*9) matrix."""
    n, c, h, w = x.shape
    padded = anp.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="constant")
    shifted = [padded[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)]
    columns = anp.stack(shifted, axis=2).reshape(n, c * 9, h * w)   # (channel, ki, kj) order
    out = anp.matmul(weight.reshape(weight.shape[0], c * 9), columns)
    return out.reshape(n, weight.shape[0], h, w) + bias.reshape(1, -1, 1, 1)


def _autograd_forward(anp, kind, params, x):
    if kind == "mlp":
        for index, (weight, bias) in enumerate(params):
            x = anp.dot(x, weight.T) + bias
            if index < len(params) - 1:
                x = anp.maximum(x, 0.0)
        return x
    (w1, b1), (w2, b2), (w3, b3) = params
    x = anp.maximum(_autograd_conv3x3(anp, x, w1, b1), 0.0)
    x = anp.maximum(_autograd_conv3x3(anp, x, w2, b2), 0.0)
    n, c, h, w = x.shape
    x = x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))   # max-pool 2
    return anp.dot(x.reshape(n, -1), w3.T) + b3


def _autograd_step(kind, pairs, x, y):
    import autograd.numpy as anp
    from autograd import value_and_grad
    from autograd.scipy.special import logsumexp

    params = [list(pair) for pair in pairs]
    rows = np.arange(len(y))

    def loss_of(params):
        logits = _autograd_forward(anp, kind, params, x)
        return anp.mean(logsumexp(logits, axis=1) - logits[rows, y])

    loss_and_grads = value_and_grad(loss_of)

    def step():
        loss, grads = loss_and_grads(params)   # fresh gradients: nothing to zero
        for pair, pair_grads in zip(params, grads):
            for value, grad in zip(pair, pair_grads):
                value -= LR * grad             # in place: the arrays in params change
        return float(loss)
    return step


# --- mygrad ------------------------------------------------------------------------------------

def _mygrad_step(kind, pairs, x, y):
    import mygrad as mg
    from mygrad.nnet.layers import conv_nd, max_pool
    from mygrad.nnet.losses import softmax_crossentropy

    # Linear weights kept as (in, out), as mygrad's own dense layers keep them: ``weight.T`` on a
    # mygrad Tensor is an operation whose result is copied at every step (the big MLP's forward
    # took twice as long with it). The convolutions keep torch's (out, in, 3, 3) layout.
    params = [(mg.Tensor(w if w.ndim == 4 else np.ascontiguousarray(w.T)), mg.Tensor(b))
              for w, b in pairs]
    inputs = mg.Tensor(x, constant=True)

    def forward():
        h = inputs
        if kind == "cnn":
            for weight, bias in params[:2]:
                h = mg.maximum(conv_nd(h, weight, stride=1, padding=1) + bias.reshape(1, -1, 1, 1),
                               0.0)
            h = max_pool(h, (2, 2), 2).reshape(len(y), -1)
            return mg.matmul(h, params[2][0]) + params[2][1]
        for index, (weight, bias) in enumerate(params):
            h = mg.matmul(h, weight) + bias
            if index < len(params) - 1:
                h = mg.maximum(h, 0.0)
        return h

    def step():
        loss = softmax_crossentropy(forward(), y)   # mean over the batch
        loss.backward()                             # sets every .grad afresh: nothing to zero
        for pair in params:
            for tensor in pair:
                tensor.data -= LR * tensor.grad
        return float(loss.item())
    return step


# --- tinygrad ----------------------------------------------------------------------------------

def _tinygrad_step(kind, pairs, x, y):
    from tinygrad import Tensor, TinyJit
    from tinygrad.helpers import Context
    from tinygrad.nn.optim import SGD

    params = [(Tensor(w), Tensor(b)) for w, b in pairs]
    optimizer = SGD([t for pair in params for t in pair], lr=LR)
    inputs, labels = Tensor(x).is_param_(False), Tensor(y.astype(np.int32)).is_param_(False)

    def forward():
        h = inputs
        if kind == "cnn":
            for weight, bias in params[:2]:
                h = h.conv2d(weight, bias, padding=1).relu()
            h = h.max_pool2d(2).flatten(1)
            return h.linear(params[2][0].T, params[2][1])
        for index, (weight, bias) in enumerate(params):
            h = h.linear(weight.T, bias)
            if index < len(params) - 1:
                h = h.relu()
        return h

    @TinyJit
    def jit_step():
        optimizer.zero_grad()
        loss = forward().sparse_categorical_crossentropy(labels)
        loss.backward()
        # one realize for the loss and the update: the loss realized after optimizer.step()
        # would be computed from the updated weights (the next step's loss)
        Tensor.realize(loss, *optimizer.schedule_step())
        return loss

    def step():
        with Context(TRAINING=1):
            return float(jit_step().item())
    return step


if __name__ == "__main__":   # the pins, for pip (make bench-peers)
    print(" ".join(f"{engine}=={version}" for engine, version in VERSIONS.items()))
