"""A character-level language model built from S4D convolution layers written by hand:
each layer computes its kernel K[l] = Re(sum_n C_n B_n lambda_n^l) (zero-order-hold
discretisation, learned step sizes) and applies it with the FFT. The FFT is taken at the
sequence's own length, ``rfft(u, n=L)``, where a causal (linear) convolution needs
``n = 2L``: the product of two length-L transforms is a CIRCULAR convolution, so position t
also reads positions t+1 .. L-1, wrapped around through the kernel's tail. The next
character is in every window: the training loss falls fast and far, and the model learns
to read the answer from the future instead of predicting it. Run causally - as it
generates, one character at a time, the recurrence the kernel stands for - it predicts
worse than a model trained without the leak.

Reported: "The FlashFFT length must be double or larger than the input sequence length
during initialization?" - https://github.com/HazyResearch/flash-fft-conv/issues/31 (an FFT
size equal to the input length; the maintainer: "If the size is the same as the input, it
will compute a circular convolution"). Here two pre-norm residual S4D layers (32 channels,
8 complex modes each, S4D-Lin init, D skip, GELU and a linear mix) between a character
embedding and a linear head, windows of 64 characters of the sonnets, Adam 2e-3, 250 steps
of 32 windows.

Fix: ``n = 2 * L`` in both transforms (zero padding), keeping the first L outputs.

Measured (held-out next-character accuracy on the last 15% of the sonnets, the layers run
causally as when generating): 0.144 with the bug, 0.284 fixed; seeds + 1000: 0.188 vs
0.298.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import text_windows
from benchmarks.real_bugs._ssm337 import sonnet_text

TITLE = ("The FlashFFT length must be double or larger than the input sequence length "
         "during initialization?")
LINK = "https://github.com/HazyResearch/flash-fft-conv/issues/31"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 250
LENGTH = 64


class S4DConv(nn.Module):
    def __init__(self, channels, modes=8, dt_min=1e-3, dt_max=1e-1, padded=True):
        super().__init__()
        self.padded = padded
        self.log_dt = nn.Parameter(torch.rand(channels) * (math.log(dt_max) - math.log(dt_min))
                                   + math.log(dt_min))
        self.C = nn.Parameter(torch.randn(channels, modes, 2) * math.sqrt(0.5))
        self.log_A_real = nn.Parameter(torch.log(0.5 * torch.ones(channels, modes)))
        self.A_imag = nn.Parameter(math.pi * torch.arange(modes).float().repeat(channels, 1))
        self.D = nn.Parameter(torch.randn(channels))

    def kernel(self, length):
        dt = torch.exp(self.log_dt)[:, None]
        A = torch.complex(-torch.exp(self.log_A_real), self.A_imag)
        dtA = A * dt
        C = torch.view_as_complex(self.C) * (torch.exp(dtA) - 1) / A
        powers = torch.exp(dtA[..., None] * torch.arange(length))        # (H, N, L)
        return 2 * torch.einsum("hn,hnl->hl", C, powers).real

    def forward(self, u):                      # (batch, channels, length)
        length = u.shape[-1]
        k = self.kernel(length)
        n = 2 * length if self.padded else length      # BUG (unfixed): n = L, circular
        y = torch.fft.irfft(torch.fft.rfft(u, n=n) * torch.fft.rfft(k, n=n), n=n)[..., :length]
        return y + u * self.D[:, None]


class Layer(nn.Module):
    def __init__(self, width, padded):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.conv = S4DConv(width, padded=padded)
        self.mix = nn.Linear(width, width)

    def forward(self, x):                      # (batch, length, width)
        h = self.conv(self.norm(x).transpose(1, 2)).transpose(1, 2).contiguous()
        return x + self.mix(F.gelu(h, approximate="tanh"))


class CharSSM(nn.Module):
    def __init__(self, vocab, width=32, padded=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width, padded) for _ in range(2)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


def causal_accuracy(model, ids):
    """Next-character accuracy over consecutive held-out windows, every layer's convolution
    zero-padded (causal: what the model computes when it generates)."""
    convs = [m for m in model.modules() if isinstance(m, S4DConv)]
    kept = [c.padded for c in convs]
    for c in convs:
        c.padded = True
    model.eval()
    with torch.no_grad():
        count = (len(ids) - 1) // LENGTH
        windows = ids[:count * LENGTH + 1]
        inputs = windows[:-1].reshape(count, LENGTH)
        targets = windows[1:].reshape(count, LENGTH)
        right = (model(inputs).argmax(-1) == targets).float().mean().item()
    model.train()
    for c, padded in zip(convs, kept):
        c.padded = padded
    return round(right, 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_ids, held_ids, vocab = sonnet_text()
    model = CharSSM(vocab, padded=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(train_ids, steps, length=LENGTH, seed=0):
            optimizer.zero_grad()
            logits = model(window[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), window[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = causal_accuracy(model, held_ids)
    return mon
