"""Variants of the core capabilities of issue #10: does watch's naming GENERALISE?

The real-bug cases (``benchmarks/real_bugs/``) are one script per public report; the rules
were written against them. Here the same kinds of bug are written again the way other users
would write them - another loss class, functional instead of module calls, another
optimizer, another model kind, the bug somewhere else, another step for a blow-up, another
batch size - so that a rule that only matches our own cases shows. These are NOT public
reports (they are not in ``real_bugs/``); each variant's EXPECTED codes were decided from
its cause before it was ever run, and each has a fixed twin (only the bug fixed) that learns.

Scored like ``bench_real_bugs.py`` (its ``score``): detected / wrong cause / missed /
false alarm (the fixed twin gives a warning or error). The twin's loss (first 10 steps
against last 10) is printed so that a twin that does not learn shows.

Run: python -m benchmarks.core_variants [NAME ...] (NAME: a variant or a capability).
"""
import sys

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks import variant_scoring
from benchmarks.variant_scoring import digits, rows
from benchmarks.real_bugs._common import (batches, binary, characters, classification,
                                          regression, text_windows)


VARIANTS, variant = variant_scoring.registry()


# ---------------------------------------------------------------------------- loops

def run_loop(model, optimizer, loss_fn, data, order="zero,forward,backward,step",
             before=None, forward=None, after_backward=None, micro=1, **watch):
    """The training loop with its calls in ``order`` (a comma list of zero, forward,
    backward, step; 'zero' left out = no zero_grad). ``before(step)`` runs first each step;
    ``forward(model, x, y)`` replaces ``loss_fn(model(x), y)`` (a model that computes its own
    loss); ``after_backward(model)`` runs after each backward (clipping); ``micro``: batches
    accumulated per optimizer step (each backward of loss / micro; 'zero' and 'step' once
    per optimizer step unless ``order`` puts 'zero' after 'forward': then every micro-batch).
    The monitor comes back, with the losses it was given in ``.variant_losses``."""
    calls = order.split(",")
    losses = []
    data = iter(data)
    with nd.watch(model, optimizer, **watch) as mon:
        step = 0
        while True:
            group = [b for _, b in zip(range(micro), data)]
            if len(group) < micro or not group:
                break
            if before is not None:
                before(step)
            total = 0.0
            for index, (xb, yb) in enumerate(group):
                first, last = index == 0, index == micro - 1
                loss = None
                for position, call in enumerate(calls):
                    per_micro = position > calls.index("forward")
                    if call == "zero" and (first or per_micro):
                        optimizer.zero_grad()
                    elif call == "forward":
                        loss = forward(model, xb, yb) if forward else loss_fn(model(xb), yb)
                        loss = loss / micro if micro > 1 else loss
                    elif call == "backward":
                        loss.backward()
                        if after_backward is not None:
                            after_backward(model)
                    elif call == "step" and (last or not per_micro):
                        optimizer.step()
                total = total + loss.detach()
            mon.step(loss * micro if micro > 1 else loss)
            losses.append(float(total))
            step += 1
    mon.variant_losses = losses
    return mon


def mlp(outputs=10, hidden=64, last=()):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, outputs), *last)


def cnn(outputs=10, norm=False, last=()):
    layers = [nn.Conv2d(1, 8, 3, padding=1)]
    layers += [nn.BatchNorm2d(8)] if norm else []
    layers += [nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
               nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, outputs), *last]
    return nn.Sequential(*layers)


class RowsGRU(nn.Module):
    """A GRU (or LSTM) reads the 8 pixel rows; its last state is classified."""

    def __init__(self, outputs=10, cell=nn.GRU, last=None):
        super().__init__()
        self.rnn = cell(8, 32, batch_first=True)
        self.head = nn.Linear(32, outputs)
        self.last = last

    def forward(self, x):
        out, _ = self.rnn(x)
        y = self.head(out[:, -1])
        return self.last(y) if self.last is not None else y


# ------------------------------------------------------------ 1. loss-side mistakes

def _regression_data(steps, batch_size=64, column=False):
    x, y = regression()
    for xb, yb in batches(x, y, steps, batch_size=batch_size):
        yield xb, (yb[:, None] if column else yb)


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def mse_n1_against_n_adam(fixed):
    torch.manual_seed(0)
    model = mlp(1)
    loss = nn.MSELoss()
    fn = (lambda out, y: loss(out.squeeze(1), y)) if fixed else loss    # BUG: (N,1) vs (N,)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=fn, data=_regression_data(120))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def l1_n1_against_n_sgd_momentum(fixed):
    torch.manual_seed(1)
    model = mlp(1)
    loss = nn.L1Loss()
    fn = (lambda out, y: loss(out.view(-1), y)) if fixed else loss
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.02, momentum=0.9),
                loss_fn=fn, data=_regression_data(120))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def functional_smooth_l1_rmsprop(fixed):
    torch.manual_seed(2)
    model = mlp(1)
    fn = (lambda out, y: F.smooth_l1_loss(out[:, 0], y)) if fixed else \
        (lambda out, y: F.smooth_l1_loss(out, y))
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 1e-3),
                loss_fn=fn, data=_regression_data(120))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def huber_output_n_against_target_n1(fixed):
    """The other way round: the model squeezes its output, the targets are a column."""
    torch.manual_seed(3)
    model = nn.Sequential(mlp(1), nn.Flatten(0))              # (N,)
    loss = nn.HuberLoss()
    fn = (lambda out, y: loss(out, y.squeeze(1))) if fixed else loss    # BUG: (N,) vs (N,1)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 1e-3),
                loss_fn=fn, data=_regression_data(120, column=True))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def mse_cnn_small_batches(fixed):
    torch.manual_seed(4)
    x, _ = classification(images=True)
    _, y = regression()
    model = cnn(1)
    loss = nn.MSELoss()
    fn = (lambda out, t: loss(out.flatten(), t)) if fixed else loss
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 2e-3), loss_fn=fn,
                data=batches(x, y, 150, batch_size=16))


@variant("loss side", ["DOUBLE_SIGMOID"])
def bce_with_logits_after_nn_sigmoid(fixed):
    torch.manual_seed(0)
    x, y = binary()
    model = mlp(1, last=() if fixed else (nn.Sigmoid(),))       # BUG: a sigmoid layer
    loss = nn.BCEWithLogitsLoss()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=lambda out, t: loss(out.squeeze(1), t), data=batches(x, y, 120))


class SigmoidNet(nn.Module):
    def __init__(self, squash, outputs=1):
        super().__init__()
        self.body = mlp(outputs)
        self.squash = squash

    def forward(self, x):
        out = self.body(x)
        if self.squash == "F":
            return F.sigmoid(out)                 # BUG (when asked): probabilities out
        if self.squash == "torch":
            return torch.sigmoid(out)
        if self.squash == "method":
            return out.sigmoid()
        return out


@variant("loss side", ["DOUBLE_SIGMOID"])
def functional_bce_with_logits_after_F_sigmoid(fixed):
    torch.manual_seed(1)
    x, y = binary()
    model = SigmoidNet(None if fixed else "F")
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1, momentum=0.9),
                loss_fn=lambda out, t: F.binary_cross_entropy_with_logits(out.view(-1), t),
                data=batches(x, y, 120))


@variant("loss side", ["DOUBLE_SIGMOID"])
def multilabel_bce_with_logits_after_torch_sigmoid(fixed):
    """Four binary attributes of each digit (>= 5, even, has a loop, a single stroke)."""
    torch.manual_seed(2)
    x, y = classification()
    model = SigmoidNet(None if fixed else "torch", outputs=4)
    loss = nn.BCEWithLogitsLoss()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 2e-3),
                loss_fn=lambda out, t: loss(out, _attributes(t)), data=batches(x, y, 150))


def _attributes(labels):
    loops = torch.tensor([1, 0, 0, 0, 1, 0, 1, 0, 1, 1])
    stroke = torch.tensor([0, 1, 0, 0, 0, 0, 0, 1, 0, 0])
    return torch.stack([labels >= 5, labels % 2 == 0, loops[labels] == 1,
                        stroke[labels] == 1], dim=1).float()


@variant("loss side", ["DOUBLE_SIGMOID"])
def cnn_bce_with_logits_after_method_sigmoid(fixed):
    torch.manual_seed(3)
    x, y = classification(images=True)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = cnn(1)

        def forward(self, v):
            out = self.body(v)
            return out if fixed else out.sigmoid()            # BUG: .sigmoid() on logits
    model = Net()
    loss = nn.BCEWithLogitsLoss()
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 2e-3),
                loss_fn=lambda out, t: loss(out, (t >= 5).float()[:, None]),
                data=batches(x, y, 120))


@variant("loss side", ["DOUBLE_SOFTMAX"])
def cross_entropy_after_nn_softmax_sgd(fixed):
    torch.manual_seed(0)
    model = mlp(10, last=() if fixed else (nn.Softmax(dim=1),))
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150))


@variant("loss side", ["DOUBLE_SOFTMAX"])
def cnn_functional_cross_entropy_after_F_softmax(fixed):
    torch.manual_seed(1)
    model = cnn(10)
    fn = (lambda out, t: F.cross_entropy(out, t)) if fixed else \
        (lambda out, t: F.cross_entropy(F.softmax(out, dim=-1), t))     # BUG
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 2e-3),
                loss_fn=fn, data=digits(120, images=True))


@variant("loss side", ["DOUBLE_SOFTMAX"])
def gru_cross_entropy_after_softmax(fixed):
    torch.manual_seed(2)
    model = RowsGRU(10, last=None if fixed else nn.Softmax(dim=-1))
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


@variant("loss side", ["NLL_ON_PROBABILITIES"])
def nll_loss_on_softmax(fixed):
    torch.manual_seed(3)
    model = mlp(10, last=(nn.LogSoftmax(dim=1),) if fixed else (nn.Softmax(dim=1),))
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.NLLLoss(), data=digits(120))


# -------------------------------------------------- 2. parts the model does not register

class ListMLP(nn.Module):
    """Hidden layers kept in a plain list (BUG) or an nn.ModuleList (fixed)."""

    def __init__(self, fixed):
        super().__init__()
        layers = [nn.Linear(64, 64), nn.Linear(64, 64)]
        self.hidden = nn.ModuleList(layers) if fixed else layers
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.head(x)


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def hidden_layers_in_plain_list_sgd(fixed):
    torch.manual_seed(0)
    model = ListMLP(fixed)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


class DictBranches(nn.Module):
    """Two branches in a plain dict (BUG) or an nn.ModuleDict (fixed), concatenated."""

    def __init__(self, fixed):
        super().__init__()
        branches = {"left": nn.Linear(32, 32), "right": nn.Linear(32, 32)}
        self.branches = nn.ModuleDict(branches) if fixed else branches
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        left = F.relu(self.branches["left"](x[:, :32]))
        right = F.relu(self.branches["right"](x[:, 32:]))
        return self.head(torch.cat([left, right], dim=1))


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def branches_in_plain_dict_adam(fixed):
    torch.manual_seed(1)
    model = DictBranches(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


class LayerBuiltInForward(nn.Module):
    """The projection is built inside forward (BUG): a new random layer every call."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Linear(64, 32)
        if fixed:
            self.project = nn.Linear(32, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        h = F.relu(self.encoder(x))
        project = self.project if self.fixed else nn.Linear(32, 32)
        return self.head(F.relu(project(h)))


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def linear_built_inside_forward(fixed):
    torch.manual_seed(2)
    model = LayerBuiltInForward(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


class TensorAttribute(nn.Module):
    """A weight kept as a plain tensor with requires_grad (BUG), not an nn.Parameter."""

    def __init__(self, fixed):
        super().__init__()
        w = torch.randn(64, 64) / 8
        self.w = nn.Parameter(w) if fixed else w.requires_grad_()
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(torch.relu(x @ self.w))


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def weight_tensor_as_plain_attribute(fixed):
    torch.manual_seed(3)
    model = TensorAttribute(fixed)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


class ListEncoderGRU(nn.Module):
    """A recurrent encoder kept in a plain list with its head (BUG)."""

    def __init__(self, fixed):
        super().__init__()
        parts = [nn.GRU(8, 32, batch_first=True)]
        self.parts = nn.ModuleList(parts) if fixed else parts
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        out, _ = self.parts[0](x)
        return self.head(out[:, -1])


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def gru_encoder_in_plain_list(fixed):
    torch.manual_seed(4)
    model = ListEncoderGRU(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


# ------------------------------------------------------------------- 3. frozen layers

def _pretrain(model, steps=150, lr=3e-3):
    """Trains ``model`` a little, unwatched (a stand-in for loading pretrained weights)."""
    optimizer = torch.optim.Adam(model.parameters(), lr)
    for xb, yb in digits(steps, seed=7, images=model[0].__class__ is nn.Conv2d):
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()


@variant("frozen", ["FROZEN_PARAMETERS"])
def random_backbone_frozen_adam(fixed):
    """A narrow MLP backbone frozen for fine-tuning though no weights were loaded; the twin
    loads (here: pretrains) them first - fine-tuning a pretrained backbone must stay silent."""
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                             nn.Linear(16, 10))
    if fixed:
        _pretrain(backbone)
    backbone[-1] = nn.Identity()
    model = nn.Sequential(*backbone, nn.Linear(16, 10))
    for p in list(model.parameters())[:4]:
        p.requires_grad_(False)
    return dict(model=model, optimizer=torch.optim.Adam(model[-1].parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


@variant("frozen", ["FROZEN_PARAMETERS"])
def every_weight_frozen_by_name_match(fixed):
    """A freezing loop meant for 'embed.weight' matches every name with 'weight' in it."""
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                          nn.Linear(32, 10))
    pattern = "embed.weight" if fixed else "weight"
    for name, p in model.named_parameters():
        if pattern in name:
            p.requires_grad = False
    return dict(model=model, optimizer=torch.optim.SGD(
        [p for p in model.parameters() if p.requires_grad], 0.1, momentum=0.9),
        loss_fn=nn.CrossEntropyLoss(), data=digits(120))


@variant("frozen", ["FROZEN_PARAMETERS"])
def cnn_convolutions_frozen_random(fixed):
    """Both convolutions frozen (requires_grad_(False) on the module), never trained."""
    torch.manual_seed(2)
    model = cnn(10)
    if fixed:
        _pretrain(model, steps=100)
        model[-1].reset_parameters()      # a new head on the pretrained convolutions
    for layer in (model[0], model[3]):
        layer.requires_grad_(False)
    return dict(model=model, optimizer=torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], 3e-3),
        loss_fn=nn.CrossEntropyLoss(), data=digits(120, images=True))


@variant("frozen", ["FROZEN_PARAMETERS"])
def gru_encoder_frozen_random(fixed):
    torch.manual_seed(3)
    model = RowsGRU(10)
    model.rnn.requires_grad_(fixed)       # BUG: the encoder frozen (nothing was loaded)
    return dict(model=model, optimizer=torch.optim.RMSprop(
        [p for p in model.parameters() if p.requires_grad], 3e-3),
        loss_fn=nn.CrossEntropyLoss(), data=rows(150))


# ---------------------------------------------------------- 4. batch norm, tiny batches

def _norm_mlp(norm_last=False):
    return nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 10))


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_mlp_batch_size_two_sgd_momentum(fixed):
    torch.manual_seed(0)
    model = _norm_mlp()
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.02, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150, batch_size=32 if fixed else 2))


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_cnn_batch_size_two_adam(fixed):
    """BatchNorm2d on batches of two images (128 values per channel, all from 2 samples)."""
    torch.manual_seed(1)
    model = cnn(10, norm=True)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(),
                data=digits(150, batch_size=32 if fixed else 2, images=True))


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_cnn_batch_size_one(fixed):
    torch.manual_seed(2)
    model = cnn(10, norm=True)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.02, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(),
                data=digits(150, batch_size=32 if fixed else 1, images=True))


def _epochs_with_tail(x, y, batch_size, epochs, drop_last):
    """Ordered epochs of ``batch_size`` with the remainder as the last batch (a DataLoader
    with drop_last=False), shuffled by a fixed generator."""
    g = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=g)
        for start in range(0, len(x), batch_size):
            index = order[start:start + batch_size]
            if drop_last and len(index) < batch_size:
                break
            yield x[index], y[index]


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_last_batch_of_two_each_epoch(fixed):
    """1,762 digits = 55 x 32 + 2: the last batch of every epoch holds two samples
    (a DataLoader with drop_last=False); three epochs."""
    torch.manual_seed(3)
    x, y = classification()
    x, y = x[:1762], y[:1762]
    model = _norm_mlp()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(),
                data=_epochs_with_tail(x, y, 32, 3, drop_last=fixed))


class ConvSequence(nn.Module):
    """A 1-D convolution with BatchNorm1d over the 8 pixel rows (channels = pixels)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 16, 3, padding=1)
        self.norm = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 10)

    def forward(self, x):                     # x (B, 8 rows, 8 pixels) -> channels = pixels
        h = F.relu(self.norm(self.conv(x.transpose(1, 2))))
        return self.head(h.mean(dim=2))


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_conv1d_batch_size_one(fixed):
    torch.manual_seed(4)
    model = ConvSequence()
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 2e-3),
                loss_fn=nn.CrossEntropyLoss(),
                data=rows(150, batch_size=32 if fixed else 1))


# --------------------------------------------------- 5. blow-ups between recorded steps

def _linear_regression(lr, optimizer="sgd", seed=0, steps=120, momentum=0.0):
    torch.manual_seed(seed)
    model = nn.Linear(64, 1)
    opt = torch.optim.SGD(model.parameters(), lr, momentum=momentum)
    return dict(model=model, optimizer=opt,
                loss_fn=lambda out, t: F.mse_loss(out.squeeze(1), t),
                data=_regression_data(steps))


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def sgd_regression_blows_up_near_step_40(fixed):
    """lr 0.095, just above the stability limit: the loss passes 1e4 at step 37."""
    return _linear_regression(0.02 if fixed else 0.095)


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def sgd_regression_blows_up_near_step_70(fixed):
    """lr 0.092 (another draw): the loss passes 1e4 at step 67."""
    return _linear_regression(0.02 if fixed else 0.092, seed=1)


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def sgd_regression_blows_up_near_step_90(fixed):
    """lr 0.09: the loss passes 1e4 at step 89."""
    return _linear_regression(0.02 if fixed else 0.09, steps=150)


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def momentum_regression_blows_up_near_step_20(fixed):
    """SGD with momentum 0.9 at lr 0.17: the loss passes 1e4 at step 19."""
    return _linear_regression(0.01 if fixed else 0.17, seed=2, momentum=0.9)


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def tanh_mlp_momentum_blows_up_near_step_15(fixed):
    """A tanh MLP, SGD momentum 0.9 at lr 0.13: the loss passes 1e4 at step 15."""
    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(),
                                                       0.01 if fixed else 0.13, momentum=0.9),
                loss_fn=lambda out, t: F.mse_loss(out.squeeze(1), t),
                data=_regression_data(150))


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def warmup_to_unstable_rate_blows_up_late(fixed):
    """A linear warm-up (100 steps) to a peak above the stability limit: the loss passes
    1e4 at step 45."""
    setup = _linear_regression(1.0, seed=3, steps=150)
    peak = 0.02 if fixed else 0.3
    opt = setup["optimizer"]

    def before(step):
        for group in opt.param_groups:
            group["lr"] = peak * min(1.0, (step + 1) / 100)
    setup["before"] = before
    return setup


# -------------------------------------------------------------- 6. sequence models

def _next_char(steps=120, length=24):
    ids, vocab = characters()
    return ((w[:, :-1], w[:, 1:]) for w in text_windows(ids, steps, length=length)), vocab


def _lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


class BiGRULM(nn.Module):
    def __init__(self, vocab, bidirectional):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, 48, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(96 if bidirectional else 48, vocab)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return self.head(out)


@variant("sequence", ["FUTURE_LEAK"])
def next_char_bidirectional_gru(fixed):
    torch.manual_seed(0)
    data, vocab = _next_char()
    model = BiGRULM(vocab, bidirectional=not fixed)             # BUG: reads the future too
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=_lm_loss, data=data)


class ConvLM(nn.Module):
    def __init__(self, vocab, causal):
        super().__init__()
        self.causal = causal
        self.embed = nn.Embedding(vocab, 32)
        self.conv = nn.Conv1d(32, 64, 5, padding=0 if causal else 2)  # BUG: centred window
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        h = self.embed(ids).transpose(1, 2)
        if self.causal:
            h = F.pad(h, (4, 0))
        return self.head(F.relu(self.conv(h)).transpose(1, 2))


@variant("sequence", ["FUTURE_LEAK"])
def next_char_conv_padded_both_sides(fixed):
    torch.manual_seed(1)
    data, vocab = _next_char()
    model = ConvLM(vocab, causal=fixed)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 3e-3),
                loss_fn=_lm_loss, data=data)


class MaskedEncoderLM(nn.Module):
    def __init__(self, vocab, fixed, length=24):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, 32)
        self.position = nn.Parameter(torch.randn(length, 32) * 0.1)
        layer = nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(32, vocab)

    def forward(self, ids):
        t = ids.shape[1]
        ones = torch.ones(t, t, dtype=torch.bool)
        # True = not allowed. Fixed: the future (above the diagonal) is masked. BUG: the
        # mask was written with tril, as if True meant "may attend": the past is masked.
        mask = torch.triu(ones, diagonal=1) if self.fixed else torch.tril(ones, diagonal=-1)
        return self.head(self.encoder(self.embed(ids) + self.position[:t], mask=mask))


@variant("sequence", ["FUTURE_LEAK"])
def transformer_mask_inverted(fixed):
    torch.manual_seed(2)
    data, vocab = _next_char()
    model = MaskedEncoderLM(vocab, fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=_lm_loss, data=data)


class BatchSoftmaxNet(nn.Module):
    """Attention-style pooling weights normalised over dim=0 - the batch (BUG) - instead of
    over the 8 rows of each sample."""

    def __init__(self, fixed):
        super().__init__()
        self.axis = 1 if fixed else 0
        self.rows = nn.Linear(8, 32)
        self.score = nn.Linear(32, 1)
        self.head = nn.Linear(32, 10)

    def forward(self, x):                          # (B, 8, 8)
        h = torch.tanh(self.rows(x))               # (B, 8, 32)
        weights = F.softmax(self.score(h), dim=self.axis)
        return self.head((weights * h).sum(dim=1))


@variant("sequence", ["BATCH_MIXING"])
def attention_pooling_softmax_over_batch(fixed):
    torch.manual_seed(3)
    model = BatchSoftmaxNet(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


class TimeMajorView(nn.Module):
    """An LSTM run time-major; its (B, T, H) batch-first output is reshaped with
    view(T, B, H) (BUG) instead of transpose, then the last step is taken."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.rnn = nn.LSTM(8, 32, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        out, _ = self.rnn(x)                       # (B, T, H)
        b, t, h = out.shape
        steps = out.transpose(0, 1) if self.fixed else out.reshape(t, b, h)
        return self.head(steps[-1])


@variant("sequence", ["BATCH_MIXING", "RESHAPE_USED_AS_TRANSPOSE"])
def lstm_output_viewed_time_major(fixed):
    torch.manual_seed(4)
    model = TimeMajorView(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


@variant("sequence", ["TARGETS_IN_INPUTS", "LABELS_MISALIGNED"])
def next_char_labels_not_shifted(fixed):
    """The targets are the input window itself (no shift): the model copies its input."""
    torch.manual_seed(5)
    ids, vocab = characters()
    windows = text_windows(ids, 120, length=24)
    data = ((w[:, :-1], w[:, 1:] if fixed else w[:, :-1]) for w in windows)   # BUG
    model = BiGRULM(vocab, bidirectional=False)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=_lm_loss, data=data)


@variant("sequence", ["TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES"])
def label_left_in_feature_columns(fixed):
    """A tabular classifier whose feature matrix still holds the label as its last column."""
    torch.manual_seed(6)
    x, y = classification()
    x = torch.cat([x[:, :63], (y.float() / 9)[:, None] if not fixed else x[:, 63:]], dim=1)
    model = mlp(10)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=batches(x, y, 120))


# ------------------------------------------------------------------ 7. training loops

@variant("loop", ["GRADIENTS_ACCUMULATING"])
def cnn_adam_without_zero_grad(fixed):
    torch.manual_seed(0)
    model = cnn(10)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120, images=True),
                order="zero,forward,backward,step" if fixed else "forward,backward,step")


@variant("loop", ["GRADIENTS_ACCUMULATING"])
def gru_sgd_momentum_without_zero_grad(fixed):
    torch.manual_seed(1)
    model = RowsGRU(10)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150),
                order="zero,forward,backward,step" if fixed else "forward,backward,step")


@variant("loop", ["GRADIENTS_DISCARDED", "PARAMS_NOT_UPDATING"])
def mlp_zero_grad_between_backward_and_step(fixed):
    torch.manual_seed(2)
    model = mlp(10)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120),
                order="zero,forward,backward,step" if fixed else "forward,backward,zero,step")


@variant("loop", ["BACKWARD_AFTER_OPTIMIZER_STEP"])
def rmsprop_step_before_backward(fixed):
    torch.manual_seed(3)
    model = mlp(10)
    return dict(model=model, optimizer=torch.optim.RMSprop(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120),
                order="zero,forward,backward,step" if fixed else "zero,forward,step,backward")


@variant("loop", ["OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING"])
def optimizer_over_another_instance(fixed):
    """The optimizer is built over a second copy of the model, not the one trained."""
    torch.manual_seed(4)
    model = cnn(10)
    other = cnn(10)
    params = model.parameters() if fixed else other.parameters()       # BUG
    return dict(model=model, optimizer=torch.optim.SGD(params, 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120, images=True))


@variant("loop", ["OPTIMIZER_MISSING_PARAMS"])
def head_replaced_after_optimizer_built(fixed):
    torch.manual_seed(5)
    model = mlp(10)
    if fixed:
        model[2] = nn.Linear(64, 10)
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    if not fixed:
        model[2] = nn.Linear(64, 10)          # BUG: the new head is not in the optimizer
    return dict(model=model, optimizer=optimizer, loss_fn=nn.CrossEntropyLoss(),
                data=digits(120))


@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def dropout_mlp_trained_in_eval_mode(fixed):
    """model.eval() after a validation pass before training, never undone."""
    torch.manual_seed(6)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.5), nn.Linear(128, 10))
    model.eval()
    if fixed:
        model.train()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def bn_cnn_eval_after_validation_every_20_steps(fixed):
    """A validation pass every 20 steps calls model.eval() and never model.train()."""
    torch.manual_seed(7)
    model = cnn(10, norm=True)
    x, _ = classification(images=True)

    def before(step):
        if step and step % 20 == 0:
            model.eval()
            with torch.no_grad():
                model(x[:64])
            if fixed:
                model.train()
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150, images=True), before=before)


# ================================================================ second wave
# The same capabilities written further from our own cases: the loss computed inside the
# model, 3-D outputs, accumulation, clipping, schedules, layouts.

# ----------------------------------------------------------------- loss side (2)

@variant("loss side", ["DOUBLE_SIGMOID"])
def bce_loss_on_sigmoid_of_sigmoid_outputs(fixed):
    """The model ends in nn.Sigmoid and the loop applies torch.sigmoid again before BCELoss:
    every prediction lies in [0.5, 0.73]."""
    torch.manual_seed(5)
    x, y = binary()
    model = mlp(1, last=(nn.Sigmoid(),))
    loss = nn.BCELoss()
    fn = (lambda out, t: loss(out.squeeze(1), t)) if fixed else \
        (lambda out, t: loss(torch.sigmoid(out).squeeze(1), t))          # BUG
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 2e-3),
                loss_fn=fn, data=batches(x, y, 150))


class LossInsideModel(nn.Module):
    """The Hugging Face convention: model(x, labels=y) returns the loss it computed."""

    def __init__(self, kind, fixed):
        super().__init__()
        self.kind, self.fixed = kind, fixed
        self.body = mlp(1)

    def forward(self, x, labels=None):
        out = self.body(x)                                    # (N, 1)
        if self.kind == "sigmoid":
            probs = out if self.fixed else torch.sigmoid(out)     # BUG: squashed twice
            return F.binary_cross_entropy_with_logits(probs.squeeze(-1), labels)
        pred = out.squeeze(-1) if self.fixed else out             # BUG: (N, 1) vs (N,)
        return F.mse_loss(pred, labels)


@variant("loss side", ["DOUBLE_SIGMOID"])
def loss_inside_forward_sigmoid_then_bce_with_logits(fixed):
    torch.manual_seed(6)
    x, y = binary()
    model = LossInsideModel("sigmoid", fixed)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 2e-3),
                forward=lambda m, xb, yb: m(xb, labels=yb), data=batches(x, y, 150))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def loss_inside_forward_mse_column_against_row(fixed):
    torch.manual_seed(7)
    model = LossInsideModel("mse", fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                forward=lambda m, xb, yb: m(xb, labels=yb), data=_regression_data(120))


class RowForecaster(nn.Module):
    """A GRU reads the pixel rows and predicts, at each row, the next row's mean."""

    def __init__(self, bidirectional=False):
        super().__init__()
        self.rnn = nn.GRU(8, 32, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(64 if bidirectional else 32, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out)                                  # (B, T, 1)


def _row_forecasts(steps, batch_size=64):
    """(rows 0..6, mean of rows 1..7): (B, 7, 8) inputs, (B, 7) targets (standardised)."""
    x, y = classification()
    rows = x.view(-1, 8, 8)
    means = rows.mean(dim=2)
    means = (means - means.mean()) / means.std()
    return ((xb[:, :-1], tb[:, 1:]) for xb, tb in batches(rows, means, steps,
                                                           batch_size=batch_size))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def gru_last_step_forecast_column_against_row(fixed):
    """The forecaster's last step, (B, 1), against the last row's mean, (B,), in
    SmoothL1Loss. (A per-step (B, T, 1) against (B, T) raises in torch unless T == B.)"""
    torch.manual_seed(8)
    model = RowForecaster()
    loss = nn.SmoothL1Loss()
    fn = (lambda out, t: loss(out[:, -1, 0], t[:, -1])) if fixed else \
        (lambda out, t: loss(out[:, -1], t[:, -1]))                   # BUG: (B,1) vs (B,)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=fn, data=_row_forecasts(150))


class SoftmaxLM(nn.Module):
    def __init__(self, vocab, fixed):
        super().__init__()
        self.fixed = fixed
        self.inner = MaskedEncoderLM(vocab, fixed=True)

    def forward(self, ids):
        logits = self.inner(ids)
        return logits if self.fixed else F.softmax(logits, dim=-1)    # BUG: (B, T, V) probs


@variant("loss side", ["DOUBLE_SOFTMAX"])
def transformer_lm_softmax_before_cross_entropy(fixed):
    torch.manual_seed(9)
    data, vocab = _next_char()
    model = SoftmaxLM(vocab, fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lambda out, t: F.cross_entropy(out.transpose(1, 2), t), data=data)


# -------------------------------------------------------------- unregistered (2)

class ParameterBuiltInForward(nn.Module):
    """A scale created as nn.Parameter inside forward (BUG): new every call, never trained."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body = nn.Linear(64, 64)
        if fixed:
            self.scale = nn.Parameter(torch.randn(64))
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        scale = self.scale if self.fixed else nn.Parameter(torch.randn(64))
        return self.head(F.relu(self.body(x)) * scale)


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def parameter_built_inside_forward(fixed):
    torch.manual_seed(5)
    model = ParameterBuiltInForward(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120))


class MultiTaskList(nn.Module):
    """Two task heads (digit, parity) kept in a plain list (BUG)."""

    def __init__(self, fixed):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        heads = [nn.Linear(64, 10), nn.Linear(64, 2)]
        self.heads = nn.ModuleList(heads) if fixed else heads

    def forward(self, x):
        h = self.trunk(x)
        return [head(h) for head in self.heads]


@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def multitask_heads_in_plain_list(fixed):
    torch.manual_seed(6)
    model = MultiTaskList(fixed)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=lambda outs, t: F.cross_entropy(outs[0], t) +
                F.cross_entropy(outs[1], t % 2), data=digits(120))


# -------------------------------------------------------------------- frozen (2)

class EncoderClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rows = nn.Linear(8, 32)
        layer = nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.encoder(self.rows(x)).mean(dim=1))


@variant("frozen", ["FROZEN_PARAMETERS"])
def transformer_encoder_frozen_random(fixed):
    """'Fine-tune the head only' on an encoder that was never pretrained: the row projection
    and both encoder layers stay random."""
    torch.manual_seed(4)
    model = EncoderClassifier()
    if not fixed:
        model.rows.requires_grad_(False)
        model.encoder.requires_grad_(False)
    return dict(model=model, optimizer=torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], 2e-3),
        loss_fn=nn.CrossEntropyLoss(), data=rows(150))


# ----------------------------------------------------------------- batchnorm (2)

@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_micro_batches_of_two_accumulated(fixed):
    """Gradient accumulation: 16 micro-batches of 2 per optimizer step (an effective batch of
    32), but each batch-norm batch holds 2 samples. Fixed: 2 micro-batches of 16."""
    torch.manual_seed(5)
    model = _norm_mlp()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(),
                data=digits(120 * 16, batch_size=16 if fixed else 2),
                micro=2 if fixed else 16)


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_cnn_batch_size_three(fixed):
    torch.manual_seed(6)
    model = cnn(10, norm=True)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(),
                data=digits(150, batch_size=32 if fixed else 3, images=True))


@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def bn_cnn_last_batch_of_one_each_epoch(fixed):
    """BatchNorm2d accepts a last batch of one image (BatchNorm1d would raise): 1,761 =
    55 x 32 + 1 digits, three epochs, drop_last=False."""
    torch.manual_seed(7)
    x, y = classification(images=True)
    x, y = x[:1761], y[:1761]
    model = cnn(10, norm=True)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(),
                data=_epochs_with_tail(x, y, 32, 3, drop_last=fixed))


# ------------------------------------------------------------------- blow-up (2)

@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def sgd_regression_blows_up_near_step_110(fixed):
    """lr 0.09 on another draw: the loss passes 1e4 at step 108."""
    return _linear_regression(0.02 if fixed else 0.09, seed=1, steps=150)


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS", "LR_GROWS_DURING_TRAINING"])
def multistep_schedule_gamma_ten_blows_up_after_100(fixed):
    """MultiStepLR(milestones=[100], gamma=10) - meant 0.1: the rate jumps from 0.02 to 0.2
    at step 100 and the loss overflows a few steps later."""
    setup = _linear_regression(0.02, seed=4, steps=150)
    schedule = torch.optim.lr_scheduler.MultiStepLR(setup["optimizer"], [100],
                                                    gamma=0.1 if fixed else 10.0)
    setup["before"] = lambda step: schedule.step() if step else None
    return setup


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def classifier_sgd_rate_overflows_logits(fixed):
    torch.manual_seed(8)
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(),
                                                       0.1 if fixed else CLASSIFIER_BLOWUP_LR,
                                                       momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150))


# ------------------------------------------------------------------ sequence (2)

class BatchAsTime(nn.Module):
    """An LSTM built without batch_first (BUG) reads (B, T, F) batches: it runs along the
    batch, so sample i's output depends on samples 0..i-1."""

    def __init__(self, fixed):
        super().__init__()
        self.rnn = nn.LSTM(8, 32, batch_first=fixed)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


@variant("sequence", ["BATCH_MIXING", "LAYOUT_NOT_TRANSPOSED"])
def lstm_without_batch_first_runs_along_batch(fixed):
    torch.manual_seed(7)
    model = BatchAsTime(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=rows(150))


@variant("sequence", ["FUTURE_LEAK"])
def bidirectional_gru_forecaster(fixed):
    """Still missed (kept as it came): its target, the mean of the next pixel row, is no
    column of its inputs, so watch cannot tell it is a next-step task (the future-leak probe
    runs only when the targets are the inputs moved by one step)."""
    torch.manual_seed(8)
    model = RowForecaster(bidirectional=not fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=lambda out, t: F.mse_loss(out.squeeze(-1), t), data=_row_forecasts(150))


@variant("sequence", ["TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES"])
def raw_label_column_left_in_features(fixed):
    """A table whose last column is still the raw class id (0-9) the model is asked for."""
    torch.manual_seed(9)
    x, y = classification()
    x = torch.cat([x[:, :63], x[:, 63:] if fixed else y.float()[:, None]], dim=1)   # BUG
    model = mlp(10)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=batches(x, y, 120))


# ---------------------------------------------------------------------- loop (2)

@variant("loop", ["GRADIENTS_ACCUMULATING"])
def sgd_without_zero_grad_but_clipped(fixed):
    """No zero_grad, but clip_grad_norm_(max_norm=1) keeps the summed gradient bounded."""
    torch.manual_seed(8)
    model = mlp(10)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.1),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150),
                after_backward=lambda m: nn.utils.clip_grad_norm_(m.parameters(), 1.0),
                order="zero,forward,backward,step" if fixed else "forward,backward,step")


@variant("loop", ["GRADIENTS_ACCUMULATING"])
def transformer_lm_adamw_without_zero_grad(fixed):
    torch.manual_seed(9)
    data, vocab = _next_char()
    model = MaskedEncoderLM(vocab, fixed=True)
    return dict(model=model, optimizer=torch.optim.AdamW(model.parameters(), 2e-3),
                loss_fn=_lm_loss, data=data,
                order="zero,forward,backward,step" if fixed else "forward,backward,step")


@variant("loop", ["GRADIENTS_DISCARDED", "PARAMS_NOT_UPDATING"])
def zero_grad_inside_accumulation_loop(fixed):
    """Four micro-batches per step, zero_grad before each backward: only the last counts."""
    torch.manual_seed(10)
    model = mlp(10)
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120 * 4, batch_size=16), micro=4,
                order="zero,forward,backward,step" if fixed else "forward,zero,backward,step")


@variant("loop", ["OPTIMIZER_MISSING_PARAMS"])
def optimizer_over_head_of_random_trainable_backbone(fixed):
    """SGD(model.head.parameters()) as if fine-tuning, on a backbone that is random and
    still requires grad (nothing was loaded, nothing frozen)."""
    torch.manual_seed(11)
    model = cnn(10)
    params = model.parameters() if fixed else model[-1].parameters()      # BUG
    return dict(model=model, optimizer=torch.optim.SGD(params, 0.05, momentum=0.9),
                loss_fn=nn.CrossEntropyLoss(), data=digits(120, images=True))


@variant("loop", ["OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING"])
def model_deep_copied_after_optimizer_built(fixed):
    import copy
    torch.manual_seed(12)
    model = mlp(10)
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    if not fixed:
        model = copy.deepcopy(model)          # BUG: the optimizer holds the original's
    return dict(model=model, optimizer=optimizer, loss_fn=nn.CrossEntropyLoss(),
                data=digits(120))


@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def train_mode_restored_on_head_only(fixed):
    """After validation: model.eval(), then model.head.train() (meant: model.train())."""
    torch.manual_seed(13)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.5),
                                      nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU())
            self.head = nn.Linear(64, 10)

        def forward(self, x):
            return self.head(self.body(x))
    model = Net()
    x, _ = classification()

    def before(step):
        if step and step % 30 == 0:
            model.eval()
            with torch.no_grad():
                model(x[:64])
            (model if fixed else model.head).train()
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150), before=before)


CLASSIFIER_BLOWUP_LR = 2.0


# ================================================================ third wave
# Added after the as-they-came scoring (commit 5c97b50), while fixing: the forecaster above
# predicts a value that is no input column (the mean of the next row); most forecasters
# predict one of their own input series.

def _series(steps, batch_size=32, length=24, seed=0):
    """Multivariate series: 3 noisy sines (B, T + 1, 3); a forecaster reads steps 0..T-1 of
    all three and predicts series 0 at steps 1..T: inputs (B, T, 3), targets (B, T)."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length + 1, dtype=torch.float32)
    for _ in range(steps):
        phase = torch.rand(batch_size, 1, 3, generator=g) * 6.28
        speed = 0.2 + 0.3 * torch.rand(batch_size, 1, 3, generator=g)
        x = torch.sin(t[None, :, None] * speed + phase)
        x = x + 0.05 * torch.randn(x.shape, generator=g)
        yield x[:, :-1], x[:, 1:, 0]


class SeriesForecaster(nn.Module):
    def __init__(self, bidirectional):
        super().__init__()
        self.rnn = nn.LSTM(3, 32, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(64 if bidirectional else 32, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out).squeeze(-1)


@variant("sequence", ["FUTURE_LEAK"])
def bidirectional_lstm_multivariate_forecaster(fixed):
    torch.manual_seed(10)
    model = SeriesForecaster(bidirectional=not fixed)          # BUG: reads step t + 1
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.MSELoss(), data=_series(150))


# ================================================================ fourth wave
# Added after the rule changes (scored as they came in their own commit): the loss written
# by hand, a segmentation's (B, C, H, W) softmax, a vanilla RNN, two typos of the loop.

@variant("loss side", ["LOSS_SHAPE_MISMATCH", "LOSS_BROADCAST_OVER_BATCH"])
def hand_written_squared_error_broadcasts(fixed):
    """loss = ((pred - y) ** 2).mean() with pred (N, 1) and y (N,): no loss module, no
    warning from torch - the difference is (N, N). Scored as it came against
    LOSS_SHAPE_MISMATCH only: wrong cause, LOSS_BROADCAST_OVER_BATCH - which is the
    project's code for this very cause in a hand-written loss (docs/checklist.md: "output
    .squeeze(1) before (output - target) ** 2"), so it is accepted."""
    torch.manual_seed(11)
    model = mlp(1)
    fn = (lambda out, t: ((out.squeeze(1) - t) ** 2).mean()) if fixed else \
        (lambda out, t: ((out - t) ** 2).mean())                       # BUG
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=fn, data=_regression_data(120))


class InkSegmenter(nn.Module):
    """Per-pixel ink / background from the 8x8 digit: (B, 2, 8, 8) scores."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 2, 3, padding=1))

    def forward(self, x):
        scores = self.body(x)
        return scores if self.fixed else F.softmax(scores, dim=1)       # BUG


def _ink_masks(steps):
    x, _ = classification(images=True)
    noisy = x + 0.3 * torch.randn(x.shape, generator=torch.Generator().manual_seed(0))
    return ((xb, (yb[:, 0] > 0.5).long()) for xb, yb in
            batches(noisy, x, steps))


@variant("loss side", ["DOUBLE_SOFTMAX"])
def segmentation_softmax_before_cross_entropy(fixed):
    torch.manual_seed(12)
    model = InkSegmenter(fixed)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 3e-3),
                loss_fn=nn.CrossEntropyLoss(), data=_ink_masks(120))


class VanillaRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(8, 64, batch_first=True, nonlinearity="relu")
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1]).squeeze(1)


@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def relu_rnn_sgd_rate_too_high(fixed):
    """A ReLU RNN with SGD momentum at 0.3: the loss does not overflow (scanned: 0.05-1.0
    never passes 1e4) but ends at 0.9 where the twin (0.01) reaches 0.4.
    Still missed: nothing blows up and the loss still falls (1.0 -> 0.9), so neither
    LR_TOO_HIGH (needs a rising or oscillating loss, or a blow-up) nor a learning-poor
    symptom fires; telling "too high" from "slow" without a second run is not done."""
    torch.manual_seed(13)
    x, _ = classification()
    _, y = regression()
    model = VanillaRNN()
    return dict(model=model, optimizer=torch.optim.SGD(model.parameters(),
                                                       0.01 if fixed else 0.3, momentum=0.9),
                loss_fn=nn.MSELoss(),
                data=((xb.view(-1, 8, 8), yb) for xb, yb in batches(x, y, 150)))


@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def model_train_without_parentheses(fixed):
    """After each validation: `model.train` (a typo: the method is not called)."""
    torch.manual_seed(14)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))
    x, _ = classification()

    def before(step):
        if step % 25 == 0:
            model.eval()
            with torch.no_grad():
                model(x[:64])
            if fixed:
                model.train()
            else:
                model.train                                           # noqa: B018 (BUG)
    return dict(model=model, optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                loss_fn=nn.CrossEntropyLoss(), data=digits(150), before=before)


# -------------------------------------------------------------------------- scoring

def run_variant(v, fixed, **watch):
    setup = v.build(fixed)
    return run_loop(setup["model"], setup["optimizer"], setup.get("loss_fn"), setup["data"],
                    order=setup.get("order", "zero,forward,backward,step"),
                    before=setup.get("before"), forward=setup.get("forward"),
                    after_backward=setup.get("after_backward"), micro=setup.get("micro", 1),
                    **watch)


def score(v, **watch):
    """(verdict, bug codes, twin codes, twin loss first->last, seconds) for one variant."""
    return variant_scoring.score(v, lambda variant, fixed: run_variant(variant, fixed, **watch))


def main(argv=()):
    watch = {"overhead": None} if "--every" in argv else {}
    torch.set_num_threads(1)
    return variant_scoring.print_table(variant_scoring.select(VARIANTS, argv),
                                       lambda v: score(v, **watch))


if __name__ == "__main__":
    main(sys.argv[1:])
