"""Variants of the core capabilities at OTHER SCALES AND DURATIONS (issue #10).

The first three variant tables (``core_variants.py``, ``_2.py``, ``_3.py``) wrote their bugs
on tiny models and 150-300-step runs, and the rules' thresholds were measured there. This
table writes the same capabilities the way a held-out suite at other sizes would: longer runs
(600-1500 steps, epochs, warm-up and decay schedules), deeper or wider models (a 6-8 layer
MLP, a small ResNet-style CNN on synthetic 3x32x32 images, a 2-layer transformer encoder on
character windows, a 2-layer LSTM), other data (regression targets, 10-20% noisy labels,
50-100 classes, unbalanced classes) and other batch sizes (8, 256).

Two kinds of row:
  * a BUG, with the EXPECTED codes decided from its cause before it was run, and a fixed
    twin (only the bug fixed) that must learn and stay silent;
  * a HEALTHY run at these sizes (expected codes empty): a long cosine schedule, a deep net
    with warm-up, noisy labels that plateau above zero, batch 8's noisy curve, 100 classes.
    It runs once and must give no warning or error.

These are NOT public reports (not in ``real_bugs/``). Scored like the other tables
(``variant_scoring``): detected / wrong cause / missed / false alarm on the twin.

Run: python -m benchmarks.core_variants_4 [NAME ... | CAPABILITY ...]
"""
import math
import sys
import time
import warnings

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks import variant_scoring
from benchmarks.bench_real_bugs import PROBLEMS
from benchmarks.real_bugs._common import batches, characters, classification, regression

VARIANTS, variant = variant_scoring.registry()
HEALTHY = "healthy"


# ---------------------------------------------------------------------------- the loop

def train(model, optimizer, data, loss_fn, zero=True, scheduler=None, validation=None,
          val_every=100, leave_eval_after=None):
    """The ordinary loop under ``nd.watch``. ``zero``: zero_grad every step (False: never).
    ``scheduler`` stepped per batch; ``validation`` (x, y): a validation loss under no_grad
    in eval mode every ``val_every`` steps; ``leave_eval_after``: the step after whose
    validation the loop forgets ``model.train()`` (the bug of the eval-mode variant)."""
    losses = []
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(data):
            if zero:
                optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            val_loss = None
            if validation is not None and step % val_every == val_every - 1:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(validation[0]), validation[1]).item()
                if leave_eval_after is None or step < leave_eval_after:
                    model.train()
            mon.step(loss, val_loss=val_loss)
            losses.append(loss.item())
    mon.variant_losses = losses
    return mon


def setup(model, optimizer, data, loss_fn=None, **kw):
    return dict(model=model, optimizer=optimizer, data=data,
                loss_fn=loss_fn or nn.CrossEntropyLoss(), **kw)


def warmup_cosine(optimizer, warmup, total, floor=0.0):
    """Linear warm-up over ``warmup`` steps, then a cosine to ``floor`` x the rate at
    ``total`` (a LambdaLR stepped per batch, the usual transformer recipe)."""
    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        done = min(1.0, (step - warmup) / max(1, total - warmup))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * done))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


# ---------------------------------------------------------------------------- data

def digits(steps, batch_size=64, scale=1.0, seed=0):
    x, y = classification()
    return batches(x * scale, y, steps, batch_size=batch_size, seed=seed)


def noisy_digits(steps, share, batch_size=64, seed=0):
    """The digits with ``share`` of the labels replaced by a random class, once (a noisy
    dataset, not a bug: the loss plateaus above zero)."""
    x, y = classification()
    g = torch.Generator().manual_seed(seed + 11)
    flip = torch.rand(len(y), generator=g) < share
    y = torch.where(flip, torch.randint(0, 10, (len(y),), generator=g), y)
    return batches(x, y, steps, batch_size=batch_size, seed=seed)


def clusters(classes, n=4000, dims=64, spread=1.0, seed=0, weights=None):
    """``n`` rows of ``classes`` Gaussian clusters in ``dims`` dimensions (standardised-ish
    features); ``weights``: class frequencies (unbalanced classes), else uniform."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, dims, generator=g)
    if weights is None:
        y = torch.randint(0, classes, (n,), generator=g)
    else:
        y = torch.multinomial(torch.tensor(weights, dtype=torch.float), n, replacement=True,
                              generator=g)
    x = centres[y] + spread * torch.randn(n, dims, generator=g)
    return x, y


def images(n=2000, classes=10, seed=0):
    """Synthetic 3x32x32 images: each class a smooth random colour pattern (an 8x8 template
    upsampled) plus pixel noise, standardised; y class ids."""
    g = torch.Generator().manual_seed(seed)
    templates = F.interpolate(torch.randn(classes, 3, 8, 8, generator=g), size=32,
                              mode="bilinear", align_corners=False)
    y = torch.randint(0, classes, (n,), generator=g)
    x = templates[y] + 1.5 * torch.randn(n, 3, 32, 32, generator=g)
    return (x - x.mean()) / x.std(), y


def char_batches(steps, batch_size=32, length=32, seed=0):
    """(inputs, targets) windows of the sonnets: next-character prediction."""
    ids, _ = characters()
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        starts = torch.randint(0, len(ids) - length - 1, (batch_size,), generator=g)
        window = torch.stack([ids[s:s + length + 1] for s in starts.tolist()])
        yield window[:, :-1], window[:, 1:]


def vocabulary():
    return characters()[1]


def lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


# ---------------------------------------------------------------------------- models

def deep_mlp(depth=8, hidden=128, outputs=10, inputs=64, act=nn.ReLU, init="kaiming",
             dropout=0.0):
    layers, width = [], inputs
    for _ in range(depth - 1):
        layers += [nn.Linear(width, hidden), act()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        width = hidden
    model = nn.Sequential(*layers, nn.Linear(width, outputs))
    for m in model:
        if isinstance(m, nn.Linear) and init == "kaiming":
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            nn.init.zeros_(m.bias)
    return model


class Block(nn.Module):
    def __init__(self, cin, cout, stride=1, norm=True):
        super().__init__()
        bn = (lambda c: nn.BatchNorm2d(c)) if norm else (lambda c: nn.Identity())
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=not norm)
        self.bn1 = bn(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=not norm)
        self.bn2 = bn(cout)
        self.skip = (nn.Identity() if stride == 1 and cin == cout else
                     nn.Conv2d(cin, cout, 1, stride, bias=False))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.skip(x))


class ResNet(nn.Module):
    """A small ResNet-style CNN for 3x32x32 images: a stride-2 stem, two residual blocks
    (the second down-sampling), global average pooling, a linear head."""

    def __init__(self, classes=10, norm=True, width=16, blocks_in_list=False):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1, bias=not norm),
                                  nn.BatchNorm2d(width) if norm else nn.Identity(), nn.ReLU())
        blocks = [Block(width, width, 1, norm), Block(width, 2 * width, 2, norm)]
        self.blocks = blocks if blocks_in_list else nn.Sequential(*blocks)
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean((2, 3)))


class CharTransformer(nn.Module):
    """A 2-layer transformer encoder over character windows, with a causal mask."""

    def __init__(self, vocab, d=64, layers=2, length=32, causal=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, length, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)
        self.causal = causal

    def forward(self, ids):
        t = ids.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t) if self.causal else None
        h = self.encoder(self.embed(ids) + self.pos[:, :t], mask=mask, is_causal=self.causal)
        return self.head(h)


class CharLSTM(nn.Module):
    """A 2-layer LSTM next-character model."""

    def __init__(self, vocab, d=32, hidden=96, batch_first=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=batch_first)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


# =============================================================== 0. healthy runs

@variant(HEALTHY, [])
def deep_mlp_warmup_cosine_1200_steps(fixed):
    """An 8-layer MLP, AdamW with 100 warm-up steps and a cosine to zero over 1200 steps
    (about 43 epochs of the digits): the loss reaches ~0 and the rate ends at 0."""
    torch.manual_seed(0)
    model = deep_mlp(8)
    opt = torch.optim.AdamW(model.parameters(), 1e-3, weight_decay=0.01)
    return setup(model, opt, digits(1200), scheduler=warmup_cosine(opt, 100, 1200))


@variant(HEALTHY, [])
def noisy_labels_twenty_percent_plateau(fixed):
    """20% of the labels replaced at random: the loss legitimately plateaus near 1.
    SGD + momentum, 800 steps."""
    torch.manual_seed(1)
    model = deep_mlp(3, hidden=64, init="default")
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                 noisy_digits(800, 0.2))


@variant(HEALTHY, [])
def resnet_synthetic_images_sgd_warmup_cosine(fixed):
    """A small ResNet on synthetic 3x32x32 images, SGD + momentum 0.1 with a 30-step
    warm-up and a cosine decay over 300 steps, batch 32."""
    torch.manual_seed(2)
    x, y = images()
    model = ResNet()
    opt = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9, weight_decay=5e-4)
    return setup(model, opt, batches(x, y, 300, batch_size=32),
                 scheduler=warmup_cosine(opt, 30, 300))


@variant(HEALTHY, [])
def char_transformer_adamw_warmup_cosine(fixed):
    """A 2-layer causal transformer on character windows, AdamW 3e-3 with 60 warm-up steps
    and a cosine to 10% over 700 steps."""
    torch.manual_seed(3)
    model = CharTransformer(vocabulary())
    opt = torch.optim.AdamW(model.parameters(), 3e-3, weight_decay=0.01)
    return setup(model, opt, char_batches(700), loss_fn=lm_loss,
                 scheduler=warmup_cosine(opt, 60, 700, floor=0.1))


@variant(HEALTHY, [])
def char_lstm_two_layers_adam_600_steps(fixed):
    """A 2-layer LSTM next-character model, Adam 3e-3, 600 steps (the loss falls from 4.1
    to ~2, a character model's long plateau-like tail)."""
    torch.manual_seed(4)
    model = CharLSTM(vocabulary())
    return setup(model, torch.optim.Adam(model.parameters(), 3e-3), char_batches(600),
                 loss_fn=lm_loss)


@variant(HEALTHY, [])
def regression_batch_256_steplr_1000_steps(fixed):
    """Regression of the digit's value, MSE, batch 256, SGD + momentum with StepLR halving
    every 250 steps over 1000 steps."""
    torch.manual_seed(5)
    x, y = regression()
    model = deep_mlp(4, hidden=64, outputs=1)
    opt = torch.optim.SGD(model.parameters(), 0.02, momentum=0.9)
    loss = nn.MSELoss()
    return setup(model, opt, batches(x, y, 1000, batch_size=256),
                 loss_fn=lambda out, t: loss(out.squeeze(1), t),
                 scheduler=torch.optim.lr_scheduler.StepLR(opt, 250, 0.5))


@variant(HEALTHY, [])
def batch_8_sgd_1500_steps(fixed):
    """Batch 8, plain SGD 0.02, 1500 steps: a noisy minibatch curve that keeps falling."""
    torch.manual_seed(6)
    model = deep_mlp(3, hidden=64, init="default")
    return setup(model, torch.optim.SGD(model.parameters(), 0.02), digits(1500, batch_size=8))


@variant(HEALTHY, [])
def hundred_classes_adam_1000_steps(fixed):
    """100 Gaussian clusters (loss from log 100 = 4.6), Adam 1e-3, batch 128."""
    torch.manual_seed(7)
    x, y = clusters(100, n=6000, spread=1.2)
    model = deep_mlp(3, hidden=256, outputs=100)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x, y, 1000, batch_size=128))


@variant(HEALTHY, [])
def unbalanced_five_classes_adam(fixed):
    """Five classes at 70/15/8/5/2 %: the rare class is learned. Adam, 600 steps.

    As it came a FALSE ALARM (PADDING_NOT_MASKED): the 70% class sits next to itself in
    shuffled batches 0.91 of the time by chance alone; padding needs runs beyond chance
    (rules/sequence.py, PAD_RUNS_BEYOND_CHANCE)."""
    torch.manual_seed(8)
    x, y = clusters(5, n=4000, spread=1.5, weights=[0.70, 0.15, 0.08, 0.05, 0.02])
    model = deep_mlp(3, hidden=64, outputs=5)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), batches(x, y, 600))


@variant(HEALTHY, [])
def multistep_decay_to_small_rate_900_steps(fixed):
    """A 6-layer MLP, SGD + momentum 0.05, MultiStepLR x0.1 at steps 300 and 600 (the
    classic recipe): the rate ends at 5e-4 once the model has learned."""
    torch.manual_seed(9)
    model = deep_mlp(6, hidden=96)
    opt = torch.optim.SGD(model.parameters(), 0.05, momentum=0.9)
    return setup(model, opt, digits(900),
                 scheduler=torch.optim.lr_scheduler.MultiStepLR(opt, [300, 600], 0.1))


# second wave (scored as they came after the first table's rule changes): schedules that
# raise the rate or restart it, a clipped SGD LSTM recipe, batch norm at batch 8

@variant(HEALTHY, [])
def onecycle_batch_256_900_steps(fixed):
    """OneCycleLR over 900 steps at batch 256 (the rate climbs 25x for 30% of the run, then
    anneals): a 4-layer MLP with SGD + momentum."""
    torch.manual_seed(40)
    model = deep_mlp(4, hidden=128)
    opt = torch.optim.SGD(model.parameters(), 0.01, momentum=0.9)
    return setup(model, opt, digits(900, batch_size=256),
                 scheduler=torch.optim.lr_scheduler.OneCycleLR(opt, 0.2, total_steps=900))


@variant(HEALTHY, [])
def cosine_warm_restarts_every_100_steps(fixed):
    """CosineAnnealingWarmRestarts(T_0=100) stepped per batch over 800 steps: eight
    cycles, on purpose (SGDR). Adam on a 6-layer MLP."""
    torch.manual_seed(41)
    model = deep_mlp(6, hidden=96)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    return setup(model, opt, digits(800),
                 scheduler=torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 100))


class ClippedSGD(torch.optim.SGD):
    """SGD that clips the gradient norm to 0.25 before each step (the classic LSTM language
    model recipe: plain SGD at rate 1 with clipping)."""

    def step(self, closure=None):
        torch.nn.utils.clip_grad_norm_([p for g in self.param_groups for p in g["params"]],
                                       0.25)
        return super().step(closure)


@variant(HEALTHY, [])
def char_lstm_sgd_rate_one_clipped(fixed):
    """A 2-layer LSTM LM with plain SGD at 1.0 and gradient clipping at 0.25, 600 steps.

    As it came a FALSE ALARM (REPEATED_OPTIMIZER_STEPS): ClippedSGD.step calls
    super().step(), and torch ran the step hooks of both (SGD.step was patched by an
    earlier SGD): the monitor counts only the outermost step() now
    (monitor/optimizer_steps.py)."""
    torch.manual_seed(42)
    model = CharLSTM(vocabulary())
    return setup(model, ClippedSGD(model.parameters(), 1.0), char_batches(600),
                 loss_fn=lm_loss)


@variant(HEALTHY, [])
def batchnorm_mlp_batch_8_1000_steps(fixed):
    """An MLP with BatchNorm1d after each hidden layer at batch 8 (small, but 8 samples a
    channel estimate the statistics well enough): SGD + momentum, 1000 steps."""
    torch.manual_seed(43)
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(),
                          nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(),
                          nn.Linear(128, 10))
    return setup(model, torch.optim.SGD(model.parameters(), 0.02, momentum=0.9),
                 digits(1000, batch_size=8))


# =============================================================== 1. dead ReLUs

@variant("dead relu", ["DEAD_RELU"])
def deep_mlp_negative_bias_init_batch_256(fixed):
    """An 8-layer MLP whose hidden biases were initialised with constant_(b, -1) (meant for
    a gate), batch 256, Adam, 600 steps: most units of the deep layers never fire."""
    torch.manual_seed(10)
    model = deep_mlp(8)
    if not fixed:
        for m in list(model)[2:-1]:
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, -1.0)            # BUG
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 digits(600, batch_size=256))


def zero_residual_init(model):
    """Kaiming convolutions with each block's last convolution zeroed (a ResNet without
    batch norm trains from this "Fixup"-style start; at torch's default init it barely
    learns in 200 steps)."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        if isinstance(m, Block):
            nn.init.zeros_(m.conv2.weight)
    return model


@variant("dead relu", ["DEAD_RELU", "LR_TOO_HIGH"])
def resnet_no_norm_sgd_rate_kills_units(fixed):
    """A ResNet without batch norm at SGD 0.5: the first updates push every stem channel
    negative, and they never fire again (200 steps, batch 32).
    As it came, the twin (torch's default init, SGD 0.02) did not learn either (2.30 ->
    2.09): both now start from zero_residual_init, where the twin learns (2.4 -> 1.2)."""
    torch.manual_seed(11)
    x, y = images()
    model = zero_residual_init(ResNet(norm=False))
    lr = 0.02 if fixed else 0.5                             # BUG: 0.5 without batch norm
    return setup(model, torch.optim.SGD(model.parameters(), lr, momentum=0.9),
                 batches(x, y, 200, batch_size=32))


# =============================================================== 2. vanishing / exploding

@variant("vanishing", ["VANISHING_GRADIENTS"])
def deep_sigmoid_mlp_1000_steps(fixed):
    """An 8-layer sigmoid MLP (default init), SGD + momentum, 1000 steps: the long run lets
    it crawl a little, but the first layers get almost no gradient."""
    torch.manual_seed(12)
    model = deep_mlp(8, hidden=64, act=nn.ReLU if fixed else nn.Sigmoid,   # BUG: sigmoid
                     init="kaiming" if fixed else "default")
    return setup(model, torch.optim.SGD(model.parameters(), 0.01, momentum=0.9),
                 digits(1000))


@variant("exploding", ["EXPLODING_GRADIENTS", "INIT_SCALE_TOO_LARGE"])
def deep_mlp_init_std_one_adamw_600(fixed):
    """A 7-layer MLP initialised with normal_(w, 0, 1) at fan-in 128, AdamW, 600 steps."""
    torch.manual_seed(13)
    model = deep_mlp(7, init="kaiming" if fixed else "default")
    if not fixed:
        for m in model:
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 1.0)       # BUG
    return setup(model, torch.optim.AdamW(model.parameters(), 1e-3), digits(600))


# =============================================================== 3. learning rate too high

@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"])
def char_transformer_adam_rate_point_05_no_warmup(fixed):
    """A 2-layer transformer LM at Adam 0.05 without warm-up (the fix: 3e-3 with warm-up)."""
    torch.manual_seed(14)
    model = CharTransformer(vocabulary())
    opt = torch.optim.Adam(model.parameters(), 3e-3 if fixed else 0.05)   # BUG
    sched = warmup_cosine(opt, 60, 300, floor=0.1) if fixed else None
    return setup(model, opt, char_batches(300), loss_fn=lm_loss, scheduler=sched)


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS"])
def warmup_to_unstable_rate_blows_up_near_step_600(fixed):
    """Linear warm-up over 600 steps towards SGD 2.0 + momentum (meant 0.05) on a
    regression MLP, 1000 steps: the loss stalls near 1 while the rate climbs, then blows
    up around step 590, between recorded steps."""
    torch.manual_seed(15)
    x, y = regression()
    model = deep_mlp(3, hidden=64, outputs=1, init="default")
    opt = torch.optim.SGD(model.parameters(), 0.05 if fixed else 2.0, momentum=0.9)  # BUG
    loss = nn.MSELoss()
    return setup(model, opt, batches(x, y, 1000, batch_size=64),
                 loss_fn=lambda out, t: loss(out.squeeze(1), t),
                 scheduler=torch.optim.lr_scheduler.LambdaLR(
                     opt, lambda s: min(1.0, (s + 1) / 600)))


@variant("lr high", ["LR_TOO_HIGH", "LOSS_DIVERGING"])
def resnet_batch_256_rmsprop_rate_point_one(fixed):
    """A ResNet without batch norm at batch 256, RMSprop 0.1 (meant 1e-3), 80 steps: the
    loss jumps to ~1e7 in the first steps and sits at chance after.
    As it came (with batch norm, 120 steps) the rate did no harm - batch norm makes the
    convolutions scale-free and the run learned 2.3 -> 0.19: no bug as written."""
    torch.manual_seed(16)
    x, y = images()
    model = ResNet(norm=False)
    opt = torch.optim.RMSprop(model.parameters(), 1e-3 if fixed else 0.1)   # BUG
    return setup(model, opt, batches(x, y, 80, batch_size=256))


@variant("lr high", ["LR_TOO_HIGH", "LR_GROWS_DURING_TRAINING", "EXPLODING_GRADIENTS"])
def multistep_gamma_ten_at_step_600(fixed):
    """MultiStepLR(gamma=10) - meant 0.1 - at step 600 of a 1000-step deep-MLP run with
    SGD + momentum: the rate jumps to 0.5 and the run blows up late."""
    torch.manual_seed(17)
    model = deep_mlp(6, hidden=96)
    opt = torch.optim.SGD(model.parameters(), 0.05, momentum=0.9)
    return setup(model, opt, digits(1000),
                 scheduler=torch.optim.lr_scheduler.MultiStepLR(
                     opt, [600], 0.1 if fixed else 10.0))           # BUG: gamma 10


# =============================================================== 4. learning rate too low

@variant("lr low", ["LR_TOO_LOW"])
def deep_mlp_adam_rate_1e6_1000_steps(fixed):
    torch.manual_seed(18)
    model = deep_mlp(8)
    opt = torch.optim.Adam(model.parameters(), 1e-3 if fixed else 1e-6)   # BUG
    return setup(model, opt, digits(1000))


@variant("lr low", ["LR_TOO_LOW"])
def char_lstm_plain_sgd_rate_1e3(fixed):
    """A 2-layer LSTM LM with plain SGD 1e-3 (copied from an Adam recipe), 600 steps."""
    torch.manual_seed(19)
    model = CharLSTM(vocabulary())
    opt = (torch.optim.Adam(model.parameters(), 3e-3) if fixed else
           torch.optim.SGD(model.parameters(), 1e-3))              # BUG
    return setup(model, opt, char_batches(600), loss_fn=lm_loss)


@variant("lr low", ["LR_TOO_LOW", "LR_AT_ZERO", "SCHEDULE_LENGTH_MISMATCH"])
def exponential_decay_per_epoch_stepped_per_batch(fixed):
    """ExponentialLR(gamma=0.97) meant per epoch (28 batches) stepped per batch: by step 200
    the rate is 2e-3 of its start; 800 steps of a 6-layer MLP with SGD + momentum."""
    torch.manual_seed(20)
    model = deep_mlp(6, hidden=96)
    opt = torch.optim.SGD(model.parameters(), 0.01, momentum=0.9)
    gamma = 0.97 ** (1 / 28) if fixed else 0.97                      # BUG: per batch
    return setup(model, opt, digits(800),
                 scheduler=torch.optim.lr_scheduler.ExponentialLR(opt, gamma))


# =============================================================== 5. zero_grad

@variant("zero_grad", ["GRADIENTS_ACCUMULATING"])
def resnet_sgd_momentum_no_zero_grad(fixed):
    torch.manual_seed(21)
    x, y = images()
    model = ResNet()
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                 batches(x, y, 200, batch_size=32), zero=fixed)   # BUG: never zeroed


@variant("zero_grad", ["GRADIENTS_ACCUMULATING"])
def char_transformer_batch_8_adamw_no_zero_grad(fixed):
    torch.manual_seed(22)
    model = CharTransformer(vocabulary())
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    return setup(model, opt, char_batches(600, batch_size=8), loss_fn=lm_loss,
                 zero=fixed)                                       # BUG


# =============================================================== 6. data problems

@variant("data", ["UNNORMALIZED_INPUTS"])
def cnn_pixels_0_to_255_synthetic_images(fixed):
    """Synthetic images shifted and scaled to 0-255 pixel values into a ResNet without
    batch norm, Adam 1e-3, 200 steps (the fix: standardised pixels)."""
    torch.manual_seed(23)
    x, y = images()
    if not fixed:
        x = ((x - x.min()) / (x.max() - x.min()) * 255).round()      # BUG: raw 0-255
    model = ResNet(norm=False)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x, y, 200, batch_size=32))


@variant("data", ["UNNORMALIZED_INPUTS"])
def regression_features_in_thousands_batch_256(fixed):
    """Tabular regression whose features carry their units (0-5000), batch 256, SGD 1e-6
    (the only rate that does not blow up), 800 steps."""
    torch.manual_seed(24)
    x, y = regression()
    scale = torch.linspace(1, 5000, 64)
    model = deep_mlp(3, hidden=64, outputs=1, init="default")
    lr = 0.02 if fixed else 1e-6
    xs = x if fixed else x * scale                                      # BUG
    loss = nn.MSELoss()
    return setup(model, torch.optim.SGD(model.parameters(), lr, momentum=0.9),
                 batches(xs, y, 800, batch_size=256),
                 loss_fn=lambda out, t: loss(out.squeeze(1), t))


@variant("data", ["LABELS_MISALIGNED", "LOSS_AT_CHANCE"])
def fifty_classes_labels_shuffled_separately(fixed):
    """50 classes; the label array was shuffled on its own (a second permutation), 800
    steps of Adam on 4000 rows: nothing but memorisation to learn.

    STAYS MISSED: the loss starts at 6.4 (above ln 50 = 3.91: the kaiming-initialised net's
    first logits are large), falls to chance and, by memorising 4000 random labels over 13
    epochs, ends at 3.4-3.6 - 8-13% under chance, outside LOSS_AT_CHANCE's 5% (the second
    campaign's rolled labels sat 5.6% under). A wider tolerance would name hard 50-class
    problems that learn slowly; no validation loss is passed, which would show it (a
    validation loss at chance while the training loss falls)."""
    torch.manual_seed(25)
    x, y = clusters(50, n=4000, spread=1.0)
    if not fixed:
        y = y[torch.randperm(len(y), generator=torch.Generator().manual_seed(1))]   # BUG
    model = deep_mlp(3, hidden=64, outputs=50)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3), batches(x, y, 800))


@variant("data", ["VALIDATION_ROWS_IN_TRAINING"])
def validation_rows_appended_to_training_long_run(fixed):
    """The validation split concatenated back onto the training rows ("use all the data"),
    then evaluated on every 100 steps of a 900-step run.

    STAYS MISSED: the kept evaluation batches (397, 397, 230 rows) each match 85% of their
    rows to the 1506 distinct training rows kept (the kept 2048 rows cover 84% of the 1797
    training rows): every validation row is a training row, so each batch reads as a
    training-accuracy pass (80%+), which VALIDATION_ROWS_IN_TRAINING leaves alone, and the
    1024 evaluated rows kept are fewer than the distinct training rows, so the "same rows
    scored again" sign of a validation set that IS the training set is not there either.
    The row counts kept per evaluation batch carry no row identity, so the same 397 rows
    evaluated at steps 199, 299 and 399 cannot be told from three training-accuracy
    passes over different rows (the second campaign's validation subset, the same
    reason)."""
    torch.manual_seed(26)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    tr, va = order[:1400], order[1400:]
    train_rows = tr if fixed else torch.cat([tr, va])                  # BUG
    model = deep_mlp(3, hidden=64, init="default")
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x[train_rows], y[train_rows], 900),
                 validation=(x[va], y[va]), val_every=100)


# =============================================================== 7. blow-up between records

@variant("blow-up", ["LR_TOO_HIGH", "EXPLODING_GRADIENTS"])
def linear_regression_warmup_crosses_limit_near_step_290(fixed):
    """A linear regression head, SGD warmed up linearly over 900 of 1200 steps to 3.0
    (meant 0.3): the rate crosses the stable limit (1/lambda_max = 1) near step 300 and
    the loss overflows within a few dozen steps, between recorded steps."""
    torch.manual_seed(27)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2000, 16, generator=g)
    y = x @ torch.randn(16, generator=g) + 0.1 * torch.randn(2000, generator=g)
    model = nn.Linear(16, 1)
    loss = nn.MSELoss()
    opt = torch.optim.SGD(model.parameters(), 0.3 if fixed else 3.0)   # BUG
    return setup(model, opt, batches(x, y, 1200),
                 loss_fn=lambda out, t: loss(out.squeeze(1), t),
                 scheduler=torch.optim.lr_scheduler.LambdaLR(
                     opt, lambda s: min(1.0, (s + 1) / 900)))


# =============================================================== 8. loss side

@variant("loss side", ["DOUBLE_SOFTMAX"])
def hundred_classes_softmax_before_cross_entropy(fixed):
    torch.manual_seed(28)
    x, y = clusters(100, n=6000, spread=1.2)
    model = deep_mlp(3, hidden=256, outputs=100)
    if not fixed:
        model.append(nn.Softmax(dim=1))                              # BUG
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x, y, 600, batch_size=128))


@variant("loss side", ["LOSS_SHAPE_MISMATCH"])
def regression_batch_8_output_column_against_row(fixed):
    """MSELoss on (8, 1) outputs against (8,) targets, batch 8, 800 steps."""
    torch.manual_seed(29)
    x, y = regression()
    model = deep_mlp(3, hidden=64, outputs=1, init="default")
    loss = nn.MSELoss()
    fn = (lambda out, t: loss(out.squeeze(1), t)) if fixed else loss   # BUG: (8,1) vs (8,)
    return setup(model, torch.optim.SGD(model.parameters(), 0.01, momentum=0.9),
                 batches(x, y, 800, batch_size=8), loss_fn=fn)


@variant("loss side", ["DOUBLE_SIGMOID"])
def twenty_labels_bce_with_logits_after_sigmoid_batch_256(fixed):
    """A 20-attribute multi-label head with nn.Sigmoid() at its end, into
    BCEWithLogitsLoss, batch 256, 600 steps.

    As it came MISSED: by step 256 Adam had driven the positives' logits past 17, where a
    float32 sigmoid is exactly 1.0, and DOUBLE_SIGMOID wanted every input strictly below
    1 (rules/loss_side.py, SIGMOID_SATURATED)."""
    torch.manual_seed(30)
    x, y = clusters(20, n=4000, spread=1.0)
    g = torch.Generator().manual_seed(4)
    table = (torch.rand(20, 20, generator=g) < 0.3).float()
    targets = table[y]
    model = deep_mlp(3, hidden=128, outputs=20)
    if not fixed:
        model.append(nn.Sigmoid())                                   # BUG
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x, targets, 600, batch_size=256), loss_fn=nn.BCEWithLogitsLoss())


# =============================================================== 9. unregistered / frozen

@variant("unregistered", ["UNREGISTERED_PARAMETERS"])
def resnet_blocks_in_plain_list(fixed):
    torch.manual_seed(31)
    x, y = images()
    model = ResNet(blocks_in_list=not fixed)                            # BUG: a list
    return setup(model, torch.optim.SGD(model.parameters(), 0.05, momentum=0.9),
                 batches(x, y, 200, batch_size=32))


@variant("frozen", ["FROZEN_PARAMETERS"])
def lstm_first_layer_frozen_random(fixed):
    """The 2-layer LSTM's embedding and first layer frozen ('pretrained' - but nothing was
    ever loaded), 300 steps of Adam on the rest (600 as it came: 53 s for the pair)."""
    torch.manual_seed(32)
    model = CharLSTM(vocabulary())
    if not fixed:
        model.embed.weight.requires_grad_(False)                      # BUG
        for name, p in model.lstm.named_parameters():
            if name.endswith("_l0"):
                p.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    return setup(model, torch.optim.Adam(params, 3e-3), char_batches(300), loss_fn=lm_loss)


# =============================================================== 10. batch norm

@variant("batchnorm", ["BATCHNORM_TINY_BATCH"])
def resnet_batch_size_two(fixed):
    """The ResNet at batch 2 (GPU memory), 400 steps; the fix is batch 32."""
    torch.manual_seed(33)
    x, y = images()
    bs, steps = (32, 200) if fixed else (2, 400)                     # BUG: batch 2
    return setup(model := ResNet(), torch.optim.SGD(model.parameters(), 0.02, momentum=0.9),
                 batches(x, y, steps, batch_size=bs))


# =============================================================== 11. sequence models

@variant("sequence", ["FUTURE_LEAK"])
def char_transformer_without_causal_mask(fixed):
    torch.manual_seed(34)
    model = CharTransformer(vocabulary(), causal=fixed)                # BUG: no mask
    opt = torch.optim.AdamW(model.parameters(), 3e-3)
    return setup(model, opt, char_batches(300), loss_fn=lm_loss,     # 600 as it came (53 s)
                 scheduler=warmup_cosine(opt, 30, 300, floor=0.1))


@variant("sequence", ["BATCH_MIXING", "LAYOUT_NOT_TRANSPOSED"])
def char_lstm_without_batch_first(fixed):
    """The 2-layer LSTM built without batch_first, fed (B, T) windows: it runs along the
    batch. 300 steps (600 as it came: 60-126 s for the pair).

    As it came MISSED: B == T == 32, so the probe's sequence-first reading (dimension 0
    mixes, dimension 1 independent: data laid out (T, B)) explained the mix away; the
    targets are the inputs shifted by one along dimension 1, which only batch-first data
    give (probes/dependencies/mixing.py, time_on_dim1)."""
    torch.manual_seed(35)
    model = CharLSTM(vocabulary(), batch_first=fixed)                 # BUG
    return setup(model, torch.optim.Adam(model.parameters(), 3e-3), char_batches(300),
                 loss_fn=lm_loss)


# =============================================================== 12. training loop

@variant("loop", ["TRAINING_IN_EVAL_MODE"])
def dropout_deep_mlp_left_in_eval_after_first_validation(fixed):
    """A 6-layer MLP with dropout 0.3; the first validation at step 100 of 700 calls
    model.eval() and the loop never calls train() again.
    As it came the run had 900 steps and the twin was named OVERFITTING: its validation
    loss rose from 0.24 at step 699 to 0.32 at step 899 while the training loss fell -
    true overfitting of a 6-layer net on 1500 rows, not a false alarm; the run now stops
    at 700 steps, where the twin's validation loss is still at its best."""
    torch.manual_seed(36)
    x, y = classification()
    model = deep_mlp(6, hidden=128, dropout=0.3)
    return setup(model, torch.optim.Adam(model.parameters(), 1e-3),
                 batches(x[:1500], y[:1500], 700), validation=(x[1500:], y[1500:]),
                 val_every=100, leave_eval_after=None if fixed else 99)    # BUG


# ------------------------------------------------------------------------- scoring

def run_variant(v, fixed):
    s = v.build(fixed)
    return train(s["model"], s["optimizer"], s["data"], s["loss_fn"], zero=s.get("zero", True),
                 scheduler=s.get("scheduler"), validation=s.get("validation"),
                 val_every=s.get("val_every", 100), leave_eval_after=s.get("leave_eval_after"))


def score(v):
    """(verdict, bug codes, twin codes, twin loss first->last, seconds) for one variant. A
    healthy run runs once: 'healthy: silent', or 'healthy: FALSE ALARM' with its codes
    counted as the twin's."""
    if v.expected:
        return variant_scoring.score(v, run_variant)
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mon = run_variant(v, True)
    codes = [f.code for f in mon.findings() if f.severity in PROBLEMS]
    losses = mon.variant_losses
    learned = (sum(losses[:10]) / 10, sum(losses[-10:]) / 10)
    verdict = "healthy: FALSE ALARM" if codes else "healthy: silent"
    return verdict, codes, codes, learned, time.perf_counter() - started


def main(argv=()):
    torch.set_num_threads(1)
    return variant_scoring.print_table(variant_scoring.select(VARIANTS, argv), score)


if __name__ == "__main__":
    main(sys.argv[1:])
