"""A class-conditional diffusion denoiser with classifier-free guidance feeds the label
through SEVERAL label embedders (one per stage), and each embedder draws its own
label-dropout mask. Guidance samples the unconditional branch with the null label in every
embedder at once, but in training that happens only when all the independent draws drop
together: with p = 0.1 and three embedders, for 0.1% of the samples instead of 10%. The
network almost never sees a fully unconditional input, its unconditional prediction is
barely trained (and the label leaks into "dropped" samples through the other stages), the
conditional loss looks as good as ever, and nothing errors.

Reported: "Question about LabelEmbedder." - https://github.com/YuchuanTian/U-DiT/issues/12
(U-DiT builds three ``LabelEmbedder``s, each with its own ``class_dropout_prob``; the reporter
worked out that all three drop together with probability 0.1 ** 3 = 0.001 so the labels leak
into the unconditional branch, and saw weaker cfg=1.5 samples than DiT; the author: "I
completely agree with your opinion ... I will fix this architectural bug"). Here: an MLP
noise predictor on the 8x8 digits with a label embedding added at each of its three hidden
stages, a null class for guidance, 10% label dropout, 100 steps of a linear beta schedule,
Adam. Fix: draw ONE dropout mask per sample and give the same (possibly null) label to every
embedder.

Measured (1,500 steps, batch 64; noise-prediction MSE on 512 held-out digits noised at
uniformly drawn steps with a fixed generator, with the null label in every embedder
(unconditional) or the true label (conditional), and the mean distance from 256 guided
samples, w = 3, ten per class, to their nearest held-out digit): seed 0, unconditional MSE
0.388 for the bug against 0.365 for the fixed twin (conditional 0.338 against 0.330), guided
samples 6.62 from the data against 5.53; seeds shifted by 1000, unconditional 0.393 against
0.370 (conditional 0.335 against 0.333), guided samples 7.12 against 6.41. The training
loss, mostly conditional, is no worse for the bug.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._diff175 import (NULL, T, data, noise_error, noised, sample,
                                            sample_distance)

GUIDANCE = 3.0

TITLE = "Question about LabelEmbedder."
LINK = "https://github.com/YuchuanTian/U-DiT/issues/12"
EXPECTED = ("CFG_UNCONDITIONAL_BRANCH_UNTRAINED",)
STEPS = 1500
P_UNCOND = 0.1
WIDTH = 128


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(65, WIDTH)
        self.mid = nn.ModuleList([nn.Linear(WIDTH, WIDTH) for _ in range(2)])
        self.out = nn.Linear(WIDTH, 64)
        self.labels = nn.ModuleList([nn.Embedding(11, WIDTH) for _ in range(3)])

    def forward(self, x_t, t, labels):
        """``labels``: one (B,) label tensor per stage."""
        h = F.silu(self.inp(torch.cat([x_t, (t.float() / T).unsqueeze(1)], 1))
                   + self.labels[0](labels[0]))
        for layer, embed, lab in zip(self.mid, self.labels[1:], labels[1:]):
            h = F.silu(layer(h) + embed(lab))
        return self.out(h)


def drop(y):
    return torch.where(torch.rand(len(y)) < P_UNCOND, torch.full_like(y, NULL), y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, y_held = data()
    model = Denoiser()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, y in batches(x_train, y_train, steps):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            if fixed:
                shared = drop(y)
                labels = [shared] * 3
            else:
                labels = [drop(y) for _ in range(3)]    # BUG: one mask per embedder
            loss = F.mse_loss(model(noised(x0, t, noise), t, labels), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    null = torch.full_like(y_held, NULL)
    mon.uncond_error = noise_error(lambda x, t: model(x, t, [null] * 3), x_held)
    mon.cond_error = noise_error(lambda x, t: model(x, t, [y_held] * 3), x_held)
    # guided samples of each class: eps_uncond + w * (eps_cond - eps_uncond)
    wanted = torch.arange(256) % 10
    nulls = torch.full_like(wanted, NULL)

    def guided(x, t):
        uncond = model(x, t, [nulls] * 3)
        return uncond + GUIDANCE * (model(x, t, [wanted] * 3) - uncond)

    mon.guided_sample_distance = sample_distance(sample(guided), x_held)
    return mon
