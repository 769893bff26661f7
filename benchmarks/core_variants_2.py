"""Variants of the training monitor's CORE diagnoses (issue #10): do they GENERALISE?

``core_variants.py`` re-wrote the issue's loss-side / unregistered / frozen / batch-norm /
blow-up cases. This second table re-writes the monitor's core diagnoses the way other users
would hit them, in both frameworks (torch and minigrad): dead ReLUs, vanishing and exploding
gradients, a learning rate off (SGD, momentum, Adam, AdamW, RMSprop, with schedulers and
warm-up), zero_grad missing or misplaced, and data problems (unnormalised inputs, labels
shuffled or shifted against their inputs, constant inputs, one class only, targets in the
inputs, validation rows taken from the training rows). Model kinds: MLP, small CNN, GRU/LSTM,
vanilla RNN, small transformer encoder.

These are NOT public reports (not in ``real_bugs/``). Each variant's EXPECTED codes were
decided from its cause before it was ever run; each has a fixed twin (only the bug fixed)
that must learn and stay silent. Scored like ``core_variants.score``: detected / wrong cause
/ missed / false alarm on the twin.

Run: python -m benchmarks.core_variants_2 [NAME ... | CAPABILITY ...]
"""
import sys

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks import variant_scoring
from benchmarks.variant_scoring import digits, rows
from benchmarks.real_bugs._common import batches, classification, regression


VARIANTS, variant = variant_scoring.registry()


# ---------------------------------------------------------------------------- the loop

def train(model, optimizer, data, loss_fn, zero="optimizer", micro=1, scheduler=None,
          validation=None, val_every=20, framework="torch"):
    """One training loop for both frameworks. ``zero``: 'optimizer' (every optimizer step,
    before the forward), 'model' (model.zero_grad()), None (never), 'every10' (only every
    10th step), 'per_micro' (before each micro-batch's backward: accumulation discarded).
    ``micro`` batches per optimizer step; ``validation`` (x, y): a validation loss under
    no_grad in eval mode every ``val_every`` steps, given to ``mon.step``."""
    losses = []
    data = iter(data)
    no_grad = torch.no_grad if framework == "torch" else _minigrad_no_grad()
    with nd.watch(model, optimizer) as mon:
        step = 0
        while True:
            group = [b for _, b in zip(range(micro), data)]
            if len(group) < micro:
                break
            if zero == "optimizer" or (zero == "every10" and step % 10 == 0):
                optimizer.zero_grad()
            elif zero == "model":
                model.zero_grad()
            total = 0.0
            for xb, yb in group:
                loss = loss_fn(model(xb), yb)
                if micro > 1:
                    loss = loss / micro
                if zero == "per_micro":
                    optimizer.zero_grad()
                loss.backward()
                total += loss.item()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            val_loss = None
            if validation is not None and step % val_every == val_every - 1:
                model.eval()
                with no_grad():
                    val_loss = loss_fn(model(validation[0]), validation[1]).item()
                model.train()
            mon.step(loss * micro if micro > 1 else loss, val_loss=val_loss)
            losses.append(total)
            step += 1
    mon.variant_losses = losses
    return mon


def _minigrad_no_grad():
    import minigrad as mg
    return mg.no_grad


# ---------------------------------------------------------------------------- pieces

def pixels(steps, batch_size=64):
    """The digits as 64 steps of one pixel each, (B, 64, 1): a long sequence."""
    x, y = classification()
    return batches(x.view(-1, 64, 1), y, steps, batch_size=batch_size)


def mlp(outputs=10, hidden=64, act=nn.ReLU, depth=1, inputs=64):
    layers, width = [], inputs
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), act()]
        width = hidden
    return nn.Sequential(*layers, nn.Linear(width, outputs))


def cnn(outputs=10, channels=1):
    return nn.Sequential(nn.Conv2d(channels, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64, outputs))


class Recurrent(nn.Module):
    def __init__(self, cell=nn.GRU, inputs=8, hidden=32, outputs=10, **kw):
        super().__init__()
        self.rnn = cell(inputs, hidden, batch_first=True, **kw)
        self.head = nn.Linear(hidden, outputs)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


class Encoder(nn.Module):
    """A small transformer encoder over the 8 pixel rows, mean-pooled and classified."""

    def __init__(self, outputs=10, d=32):
        super().__init__()
        self.embed = nn.Linear(8, d)
        self.pos = nn.Parameter(torch.randn(1, 8, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d, outputs)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x) + self.pos).mean(1))


def setup(model, optimizer, data, loss_fn=None, **kw):
    return dict(model=model, optimizer=optimizer, data=data,
                loss_fn=loss_fn or nn.CrossEntropyLoss(), **kw)


# minigrad pieces

def mg_digits(steps, batch_size=64, scale=True, transform=None, seed=0):
    from nndebug.zoo.common import batches as zoo_batches, digits as zoo_digits
    x, y = zoo_digits(scale=scale)
    if transform is not None:
        x, y = transform(x, y)
    return zoo_batches(x, y, steps, batch_size=batch_size, seed=seed, framework="minigrad")


def mg_mlp(outputs=10, hidden=64, act="ReLU", depth=1):
    import minigrad.nn as mnn
    layers, width = [], 64
    for _ in range(depth):
        layers += [mnn.Linear(width, hidden), getattr(mnn, act)()]
        width = hidden
    return mnn.Sequential(*layers, mnn.Linear(width, outputs))


def mg(build_model, opt, lr, steps=120, loss="CrossEntropyLoss", data=None, seed=0, **kw):
    """A minigrad setup: the model from ``build_model()``, optimizer class name ``opt``."""
    import minigrad as mgr
    import minigrad.nn as mnn
    import minigrad.optim as optim
    mgr.manual_seed(seed)
    model = build_model()
    options = kw.pop("options", {})
    return dict(model=model, optimizer=getattr(optim, opt)(model.parameters(), lr=lr, **options),
                data=data if data is not None else mg_digits(steps),
                loss_fn=getattr(mnn, loss)(), framework="minigrad", **kw)


# ================================================================ 1. dead ReLUs

@variant("dead relu", ["DEAD_RELU"])
def mlp_hidden_bias_minus_five_adam(fixed):
    torch.manual_seed(0)
    model = mlp(depth=2)
    if not fixed:
        nn.init.constant_(model[2].bias, -5.0)      # BUG: the second layer's units start dead
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), digits(120))


@variant("dead relu", ["DEAD_RELU"])
def cnn_conv_bias_minus_three_sgd_momentum(fixed):
    torch.manual_seed(1)
    model = cnn()
    if not fixed:
        with torch.no_grad():
            model[0].bias.fill_(-3.0)              # BUG: every first-layer channel negative
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                 digits(120, images=True))


@variant("dead relu", ["DEAD_RELU", "LR_TOO_HIGH"])
def mlp_sgd_rate_kills_units(fixed):
    """Too high a rate: one big early update pushes the hidden units negative for good."""
    torch.manual_seed(2)
    model = mlp(hidden=128)
    lr = 0.05 if fixed else 3.0                      # BUG: lr 3 on plain SGD
    return setup(model, torch.optim.SGD(model.parameters(), lr), digits(150))


@variant("dead relu", ["DEAD_RELU"])
def mlp_init_mean_and_std_swapped(fixed):
    """Weights drawn from N(-0.1, 0.05): a mean meant as a std (every pre-activation < 0)."""
    torch.manual_seed(3)
    model = mlp(depth=2)
    if not fixed:
        for layer in (model[0], model[2]):
            nn.init.normal_(layer.weight, -0.1, 0.05)   # BUG: normal_(w, mean, std) swapped
    return setup(model, torch.optim.AdamW(model.parameters(), 1e-3), digits(120))


@variant("dead relu", ["DEAD_RELU"], "minigrad")
def minigrad_relu_bias_minus_four_sgd_momentum(fixed):
    import minigrad.nn as mnn

    def build():
        model = mg_mlp(depth=2)
        if not fixed:
            mnn.init.constant_(model[2].bias, -4.0)   # BUG
        return model
    return mg(build, "SGD", 0.05, options=dict(momentum=0.9))


# ======================================================= 2. vanishing / exploding

@variant("vanishing", ["VANISHING_GRADIENTS"])
def mlp_ten_sigmoid_layers_sgd(fixed):
    torch.manual_seed(0)
    model = mlp(hidden=32, depth=10, act=nn.ReLU if fixed else nn.Sigmoid)   # BUG: sigmoids
    if fixed:
        for m in model:
            if isinstance(m, nn.Linear):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9), digits(150))


@variant("vanishing", ["VANISHING_GRADIENTS", "INIT_SCALE_TOO_SMALL"])
def mlp_deep_tanh_tiny_init_adam(fixed):
    torch.manual_seed(1)
    model = mlp(hidden=64, depth=8, act=nn.Tanh)
    for m in model:
        if isinstance(m, nn.Linear):
            if fixed:
                nn.init.xavier_normal_(m.weight)
            else:
                nn.init.normal_(m.weight, 0.0, 0.01)   # BUG: std 0.01 at width 64
            nn.init.zeros_(m.bias)
    return setup(model, torch.optim.SGD(model.parameters(), 0.05), digits(150))


@variant("vanishing", ["VANISHING_GRADIENTS"])
def cnn_sigmoid_activations_deep(fixed):
    torch.manual_seed(2)
    act = nn.ReLU if fixed else nn.Sigmoid                  # BUG: sigmoid between 6 convs
    layers, c = [], 1
    for _ in range(6):
        layers += [nn.Conv2d(c, 16, 3, padding=1), act()]
        c = 16
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    if fixed:       # ReLU with its init (the default init leaves 6 ReLU convs at chance)
        for m in model:
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.zeros_(m.bias)
    return setup(model, torch.optim.SGD(model.parameters(), 0.01, momentum=0.9),
                 digits(150, images=True))


@variant("vanishing", ["VANISHING_GRADIENTS"])
def vanilla_rnn_over_64_pixels(fixed):
    """A tanh RNN reads 64 single pixels; the gradient to the early pixels vanishes. The fix
    is the gated cell (a GRU) over the same sequence.

    STAYS 'wrong cause' (LOSS_DIVERGING): the run learns a little (2.31 -> 2.0 by step 40),
    then a cliff of the recurrence (Pascanu et al.) throws the loss to 2.86 near step 50 -
    between the recorded steps 32 and 64 - and from step 64 on the RNN's four parameters
    get no gradient at all (the hidden tanh pinned) while the head still does. The tanh sits
    inside nn.RNN, so no activation statistic shows the saturation, and a vanishing ratio
    after a loss that rose is, by the rule's own reasoning, no cause of the rise.
    LOSS_DIVERGING's fix (lower the rate, clip) is what this run needs first."""
    torch.manual_seed(3)
    model = Recurrent(nn.GRU if fixed else nn.RNN, inputs=1, hidden=32)   # BUG: plain RNN
    return setup(model, torch.optim.SGD(model.parameters(), 0.1, momentum=0.9), pixels(150))


@variant("vanishing", ["VANISHING_GRADIENTS", "INIT_SCALE_TOO_SMALL"], "minigrad")
def minigrad_deep_tanh_tiny_init(fixed):
    import minigrad.nn as mnn

    def build():
        model = mg_mlp(hidden=64, depth=8, act="Tanh")
        for m in model:
            if isinstance(m, mnn.Linear):
                if fixed:
                    mnn.init.xavier_normal_(m.weight)
                else:
                    mnn.init.normal_(m.weight, 0.0, 0.01)    # BUG
                mnn.init.zeros_(m.bias)
        return model
    return mg(build, "SGD", 0.05, steps=150)


@variant("vanishing", ["VANISHING_GRADIENTS"], "minigrad")
def minigrad_sigmoid_stack_sgd_momentum(fixed):
    import minigrad.nn as mnn

    def build():
        model = mg_mlp(hidden=32, depth=10, act="ReLU" if fixed else "Sigmoid")   # BUG
        if fixed:   # ReLU with its init (the default init leaves 10 ReLU layers at chance)
            for m in model:
                if isinstance(m, mnn.Linear):
                    mnn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                    mnn.init.zeros_(m.bias)
        return model
    return mg(build, "SGD", 0.02, options=dict(momentum=0.9), steps=150)


@variant("exploding", ["EXPLODING_GRADIENTS", "INIT_SCALE_TOO_LARGE"])
def mlp_deep_relu_init_std_one(fixed):
    torch.manual_seed(4)
    model = mlp(hidden=128, depth=6)
    for m in model:
        if isinstance(m, nn.Linear):
            if fixed:
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            else:
                nn.init.normal_(m.weight, 0.0, 1.0)      # BUG: std 1 at fan-in 128
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9), digits(120))


@variant("exploding", ["EXPLODING_GRADIENTS", "INIT_SCALE_TOO_LARGE"])
def relu_rnn_recurrent_weights_scaled_up(fixed):
    """A ReLU RNN whose recurrent matrix is orthogonal times a gain, over the 8 rows. As it
    came (gain 1.6, SGD 0.05) the 'bug' learned better than its twin (loss 0.14 against
    0.68): 1.6^8 = 43 is no blow-up at that rate, so the variant was no bug (missed for that
    reason). Now gain 3 (3^8 = 6561) against the twin's gain 1 (an identity-like start)."""
    torch.manual_seed(5)
    model = Recurrent(nn.RNN, inputs=8, hidden=64, nonlinearity="relu")
    with torch.no_grad():
        nn.init.orthogonal_(model.rnn.weight_hh_l0)
        model.rnn.weight_hh_l0.mul_(1.0 if fixed else 3.0)   # BUG: recurrent gain 3 per step
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9), rows(120))


@variant("exploding", ["EXPLODING_GRADIENTS", "INIT_SCALE_TOO_LARGE"], "minigrad")
def minigrad_deep_relu_init_std_one(fixed):
    import minigrad.nn as mnn

    def build():
        model = mg_mlp(hidden=128, depth=6)
        for m in model:
            if isinstance(m, mnn.Linear):
                if fixed:
                    mnn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                else:
                    mnn.init.normal_(m.weight, 0.0, 1.0)   # BUG
        return model
    return mg(build, "SGD", 0.05, options=dict(momentum=0.9))


# ============================================================ 3. learning rate off

@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"])
def mlp_adam_rate_half(fixed):
    torch.manual_seed(0)
    model = mlp()
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3 if fixed else 0.5),
                 digits(120))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"])
def cnn_adamw_rate_point_three(fixed):
    torch.manual_seed(1)
    model = cnn()
    return setup(model, torch.optim.AdamW(model.parameters(), 2e-3 if fixed else 0.3),
                 digits(120, images=True))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS"])
def gru_rmsprop_rate_point_five(fixed):
    torch.manual_seed(2)
    model = Recurrent(nn.GRU)
    return setup(model, torch.optim.RMSprop(model.parameters(), 3e-3 if fixed else 0.5),
                 rows(120))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS"])
def mlp_sgd_momentum_rate_two_mse(fixed):
    """A regression MLP with SGD+momentum at lr 2 on MSELoss: the loss blows up early."""
    torch.manual_seed(3)
    model = mlp(1)
    x, y = regression()
    loss = nn.MSELoss()
    return setup(model, torch.optim.SGD(model.parameters(), 0.01 if fixed else 0.5,
                                        momentum=0.9),
                 batches(x, y, 120), loss_fn=lambda out, t: loss(out.squeeze(1), t))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"])
def transformer_encoder_adam_rate_point_one(fixed):
    torch.manual_seed(4)
    model = Encoder()
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3 if fixed else 0.1), rows(120))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS"])
def cosine_schedule_starting_too_high_sgd(fixed):
    """A cosine schedule does not save a start 100x too high: the damage is done early."""
    torch.manual_seed(5)
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), 0.1 if fixed else 10.0, momentum=0.9)
    return setup(model, opt, digits(120),
                 scheduler=torch.optim.lr_scheduler.CosineAnnealingLR(opt, 120))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"], "minigrad")
def minigrad_sgd_rate_five(fixed):
    return mg(mg_mlp, "SGD", 0.1 if fixed else 5.0)


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"], "minigrad")
def minigrad_rmsprop_rate_point_five(fixed):
    return mg(mg_mlp, "RMSprop", 1e-3 if fixed else 0.5, seed=1)


@variant("lr low", ["LR_TOO_LOW"])
def mlp_sgd_rate_1e5(fixed):
    torch.manual_seed(0)
    model = mlp()
    return setup(model, torch.optim.SGD(model.parameters(), 0.1 if fixed else 1e-5),
                 digits(150))


@variant("lr low", ["LR_TOO_LOW"])
def cnn_adam_rate_1e6(fixed):
    torch.manual_seed(1)
    model = cnn()
    return setup(model, torch.optim.Adam(model.parameters(), 2e-3 if fixed else 1e-6),
                 digits(150, images=True))


@variant("lr low", ["LR_TOO_LOW"])
def lstm_sgd_momentum_rate_1e4(fixed):
    torch.manual_seed(2)
    model = Recurrent(nn.LSTM)
    return setup(model, torch.optim.SGD(model.parameters(), 0.5 if fixed else 1e-4,
                                        momentum=0.9), rows(150))


@variant("lr low", ["LR_TOO_LOW", "LR_AT_ZERO"])
def adamw_steplr_decays_every_ten_steps(fixed):
    """StepLR(step_size=10, gamma=0.1) stepped every batch (meant per epoch): after 30 steps
    the rate is 1e-6."""
    torch.manual_seed(3)
    model = mlp()
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1000 if fixed else 10, gamma=0.1)
    return setup(model, opt, digits(150), scheduler=sched)


@variant("lr low", ["LR_TOO_LOW", "SCHEDULE_LENGTH_MISMATCH"])
def warmup_sized_for_ten_thousand_steps(fixed):
    """A linear warm-up over 10,000 steps in a run of 150: the rate never leaves ~1e-5."""
    torch.manual_seed(4)
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    warm = 10 if fixed else 10_000                  # BUG: warm-up sized for another run
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
    return setup(model, opt, digits(150), scheduler=sched)


@variant("lr low", ["LR_TOO_LOW"])
def transformer_encoder_adamw_rate_1e6(fixed):
    torch.manual_seed(5)
    model = Encoder()
    return setup(model, torch.optim.AdamW(model.parameters(), 1e-3 if fixed else 1e-6),
                 rows(150))


@variant("lr low", ["LR_TOO_LOW"], "minigrad")
def minigrad_adam_rate_1e6(fixed):
    return mg(mg_mlp, "Adam", 1e-3 if fixed else 1e-6, steps=150)


@variant("lr low", ["LR_TOO_LOW"], "minigrad")
def minigrad_sgd_momentum_rate_1e5(fixed):
    return mg(mg_mlp, "SGD", 0.05 if fixed else 1e-5, steps=150, options=dict(momentum=0.9))


# ============================================================== 4. zero_grad

@variant("zero_grad", ["GRADIENTS_ACCUMULATING"])
def transformer_encoder_sgd_momentum_no_zero_grad(fixed):
    torch.manual_seed(0)
    model = Encoder()
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9), rows(120),
                 zero="optimizer" if fixed else None)


@variant("zero_grad", ["GRADIENTS_ACCUMULATING"])
def mlp_zero_grad_only_every_ten_steps(fixed):
    torch.manual_seed(1)
    model = mlp()
    return setup(model, torch.optim.SGD(model.parameters(), 0.1), digits(120),
                 zero="optimizer" if fixed else "every10")


@variant("zero_grad", ["GRADIENTS_ACCUMULATING"])
def lstm_rmsprop_no_zero_grad(fixed):
    torch.manual_seed(2)
    model = Recurrent(nn.LSTM)
    return setup(model, torch.optim.RMSprop(model.parameters(), 3e-3), rows(120),
                 zero="optimizer" if fixed else None)


class TemperatureLoss(nn.Module):
    """Cross-entropy over logits divided by a learned temperature (its own parameter)."""

    def __init__(self):
        super().__init__()
        self.log_t = nn.Parameter(torch.zeros(()))

    def forward(self, logits, y):
        return F.cross_entropy(logits / self.log_t.exp(), y)


@variant("zero_grad", ["OPTIMIZER_PARAMS_NEVER_ZEROED", "GRADIENTS_ACCUMULATING"])
def model_zero_grad_misses_loss_temperature(fixed):
    torch.manual_seed(3)
    model = mlp()
    loss = TemperatureLoss()
    opt = torch.optim.Adam(list(model.parameters()) + list(loss.parameters()), 1e-3)
    return setup(model, opt, digits(120), loss_fn=loss,
                 zero="optimizer" if fixed else "model")   # BUG: model.zero_grad()


@variant("zero_grad", ["GRADIENTS_DISCARDED"])
def cnn_zero_grad_per_micro_batch(fixed):
    torch.manual_seed(4)
    model = cnn()
    return setup(model, torch.optim.Adam(model.parameters(), 2e-3),
                 digits(480, batch_size=16, images=True), micro=4,
                 zero="optimizer" if fixed else "per_micro")


@variant("zero_grad", ["GRADIENTS_DISCARDED"])
def gru_zero_grad_per_micro_batch_sgd(fixed):
    torch.manual_seed(5)
    model = Recurrent(nn.GRU)
    return setup(model, torch.optim.SGD(model.parameters(), 0.2, momentum=0.9),
                 rows(360, batch_size=16), micro=3,
                 zero="optimizer" if fixed else "per_micro")


@variant("zero_grad", ["GRADIENTS_ACCUMULATING"], "minigrad")
def minigrad_adam_no_zero_grad(fixed):
    return mg(mg_mlp, "Adam", 1e-3, zero="optimizer" if fixed else None)


@variant("zero_grad", ["GRADIENTS_ACCUMULATING"], "minigrad")
def minigrad_sgd_zero_grad_every_ten(fixed):
    return mg(mg_mlp, "SGD", 0.1, seed=1, zero="optimizer" if fixed else "every10")


@variant("zero_grad", ["GRADIENTS_DISCARDED"], "minigrad")
def minigrad_zero_grad_per_micro_batch(fixed):
    return mg(mg_mlp, "SGD", 0.1, seed=2, options=dict(momentum=0.9),
              data=mg_digits(480, batch_size=16), micro=4,
              zero="optimizer" if fixed else "per_micro")


# ================================================================ 5. data problems

@variant("data", ["UNNORMALIZED_INPUTS"])
def cnn_pixels_0_to_255_sgd(fixed):
    torch.manual_seed(0)
    model = cnn()
    scale = 1.0 if fixed else 255.0                  # BUG: raw 0-255 pixels
    return setup(model, torch.optim.SGD(model.parameters(), 0.01, momentum=0.9),
                 digits(150, images=True, scale=scale))


@variant("data", ["UNNORMALIZED_INPUTS"])
def mlp_one_feature_in_thousands_adam(fixed):
    """A table whose extra column is a raw count in the thousands next to [0, 1] pixels."""
    torch.manual_seed(1)
    x, y = classification()
    g = torch.Generator().manual_seed(0)
    count = torch.randint(500, 5000, (len(x), 1), generator=g).float()
    if fixed:
        count = (count - count.mean()) / count.std()
    x = torch.cat([x, count], 1)                     # BUG: the count left unscaled
    model = mlp(inputs=65)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), batches(x, y, 150))


@variant("data", ["UNNORMALIZED_INPUTS"], "minigrad")
def minigrad_pixels_0_to_255(fixed):
    return mg(mg_mlp, "SGD", 0.05, steps=150, options=dict(momentum=0.9),
              data=mg_digits(150, transform=None if fixed else lambda x, y: (x * 255, y)))


@variant("data", ["LABELS_MISALIGNED", "LOSS_AT_CHANCE"])
def cnn_labels_shuffled_separately(fixed):
    torch.manual_seed(2)
    x, y = classification(images=True)
    g = torch.Generator().manual_seed(1)
    x = x[torch.randperm(len(x), generator=g)]
    y = y[torch.randperm(len(y), generator=g)] if not fixed else y[torch.randperm(  # BUG
        len(y), generator=torch.Generator().manual_seed(1))]
    model = cnn()
    return setup(model, torch.optim.Adam(model.parameters(), 2e-3), batches(x, y, 150))


@variant("data", ["LABELS_MISALIGNED", "LOSS_AT_CHANCE"])
def gru_labels_rolled_by_one_row(fixed):
    """Labels read from a file whose header line was skipped for the features only.

    STAYS MISSED: the labels are as good as random, but the GRU memorises them a little
    (2.31 -> 2.17 over ~5 epochs), 5.6% under ln(10): just outside LOSS_AT_CHANCE's 5%.
    Telling memorisation from slow learning needs the loss on first sightings of each row
    against later ones, which the monitor does not keep; widening the 5% would reach healthy
    slow runs."""
    torch.manual_seed(3)
    x, y = classification()
    if not fixed:
        y = torch.roll(y, 1)                         # BUG: every label one row off
    model = Recurrent(nn.GRU)
    return setup(model, torch.optim.Adam(model.parameters(), 3e-3),
                 batches(x.view(-1, 8, 8), y, 150))


@variant("data", ["LABELS_MISALIGNED", "LOSS_AT_CHANCE"], "minigrad")
def minigrad_labels_rolled_by_one_row(fixed):
    """STAYS MISSED, as gru_labels_rolled_by_one_row: memorised random labels fall just
    past LOSS_AT_CHANCE's tolerance."""
    return mg(mg_mlp, "Adam", 1e-3, steps=150, data=mg_digits(
        150, transform=None if fixed else lambda x, y: (x, np.roll(y, 1))))


@variant("data", ["CONSTANT_INPUTS"])
def mlp_input_buffer_never_filled(fixed):
    """A preallocated batch buffer is sent to the model instead of the filled one."""
    torch.manual_seed(4)
    x, y = classification()
    model = mlp()
    buffer = torch.zeros(64, 64)

    def loader():
        for xb, yb in batches(x, y, 120):
            if fixed:
                buffer.copy_(xb)
            yield buffer.clone(), yb                 # BUG: the copy was forgotten
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), loader())


@variant("data", ["CONSTANT_INPUTS"], "minigrad")
def minigrad_inputs_cast_to_int_zero(fixed):
    """Pixels in [0, 1) cast to integers: every input row becomes 0."""
    def cast(x, y):
        return (np.floor(x * 0.999)).astype(np.float32), y      # BUG: astype(int) of [0, 1)
    return mg(mg_mlp, "Adam", 1e-3, data=mg_digits(120, transform=None if fixed else cast))


@variant("data", ["TARGETS_ALL_ONE_CLASS", "TARGETS_ALL_ONE_VALUE"])
def bce_threshold_makes_one_class(fixed):
    """Binary labels built with the wrong threshold: y > 10 on digits 0-9 is never true."""
    torch.manual_seed(5)
    x, y = classification()
    t = (y >= 5).float() if fixed else (y > 10).float()    # BUG
    model = mlp(1)
    loss = nn.BCEWithLogitsLoss()
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), batches(x, t, 120),
                 loss_fn=lambda out, t: loss(out.squeeze(1), t))


@variant("data", ["TARGETS_ALL_ONE_CLASS"])
def cnn_filtered_to_one_digit(fixed):
    """A filter meant to drop one corrupt digit keeps only that digit."""
    torch.manual_seed(6)
    x, y = classification(images=True)
    keep = (y != 3) if fixed else (y == 3)            # BUG: == for !=
    model = cnn()
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                 batches(x[keep], y[keep], 120, batch_size=32))


@variant("data", ["TARGETS_ALL_ONE_CLASS"], "minigrad")
def minigrad_labels_all_zero(fixed):
    """Labels read from the wrong column: every label is 0."""
    return mg(mg_mlp, "SGD", 0.1, data=mg_digits(
        120, transform=None if fixed else lambda x, y: (x, np.zeros_like(y))))


@variant("data", ["TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES"])
def one_hot_labels_concatenated_to_features(fixed):
    """The one-hot label columns were concatenated to the features with the other
    one-hot encoded categoricals."""
    torch.manual_seed(7)
    x, y = classification()
    extra = F.one_hot(y, 10).float() if not fixed else \
        F.one_hot(torch.randint(0, 10, (len(y),), generator=torch.Generator().manual_seed(0)),
                  10).float()                      # the fix: the real categorical column
    x = torch.cat([x, extra], 1)                   # BUG: the label's own one-hot columns
    model = mlp(inputs=74)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), batches(x, y, 120))


@variant("data", ["TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES"])
def regression_target_left_in_features(fixed):
    """A regression table whose target column stayed among the inputs (the last column)."""
    torch.manual_seed(8)
    x, y = regression()
    extra = y[:, None] if not fixed else torch.randn(len(y), 1,
                                                     generator=torch.Generator().manual_seed(0))
    x = torch.cat([x, extra], 1)                   # BUG: the target itself as column 65
    model = mlp(1, inputs=65)
    loss = nn.SmoothL1Loss()
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), batches(x, y, 120),
                 loss_fn=lambda out, t: loss(out.squeeze(1), t))


@variant("data", ["VALIDATION_ROWS_IN_TRAINING", "VALIDATION_OVERLAPS_TRAINING"])
def validation_sampled_from_training_rows(fixed):
    """The validation set drawn with randperm from ALL rows after the training rows were
    taken from the same permutation's first 80%: an off-by-slice takes [:n_val] again.

    STAYS MISSED: every validation row is a training row, but the kept training rows (2048
    rows of 32 batches) hold 1344 of the 1437 distinct training rows, so 94% of each
    evaluation batch matches: above the 80% that makes a batch a training-accuracy pass
    (left alone), below the 98% of 'the validation set IS the training set', whose other
    sign (more evaluated rows than distinct training rows) a validation subset smaller than
    the training set cannot give. Without knowing which evaluation a kept batch came from, a
    training-accuracy pass that fills the evaluation rows kept looks the same."""
    torch.manual_seed(9)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    n_train = int(0.8 * len(x))
    train_rows = order[:n_train]
    val_rows = order[n_train:] if fixed else order[:len(x) - n_train]   # BUG: [:n_val]
    model = mlp()
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x[train_rows], y[train_rows], 200),
                 validation=(x[val_rows], y[val_rows]), val_every=25)


# ------------------------------------------------------------------------- scoring

def run_variant(v, fixed):
    s = v.build(fixed)
    return train(s["model"], s["optimizer"], s["data"], s["loss_fn"],
                 zero=s.get("zero", "optimizer"), micro=s.get("micro", 1),
                 scheduler=s.get("scheduler"), validation=s.get("validation"),
                 val_every=s.get("val_every", 20), framework=s.get("framework", "torch"))


def score(v):
    """(verdict, bug codes, twin codes, twin loss first->last, seconds) for one variant."""
    return variant_scoring.score(v, run_variant)


def main(argv=()):
    torch.set_num_threads(1)
    return variant_scoring.print_table(variant_scoring.select(VARIANTS, argv), score,
                                       extra_columns=[variant_scoring.FRAMEWORK_COLUMN])


if __name__ == "__main__":
    main(sys.argv[1:])
