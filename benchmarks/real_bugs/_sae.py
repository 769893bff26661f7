"""Pieces real-bug batch 208's sparse-autoencoder cases share (each case keeps its own bug in
its own file): synthetic activations made of sparse ground-truth features in superposition
(48 unit directions in 24 dimensions, each active in ~4% of the samples), a one-layer ReLU
sparse autoencoder over them, and the metrics the docstrings quote: how well the decoder
recovers the true features (mean max cosine similarity, MMCS), the held-out L0 (latents
active per sample) and the held-out fraction of variance unexplained (FVU)."""
import torch
from torch.nn import functional as F

DIM = 24
TRUE_FEATURES = 48
LATENTS = 64
ACTIVE = 0.04
TRAIN = 4096
HELD_OUT = 1024


def activations(n_train=TRAIN, n_held_out=HELD_OUT):
    """(x_train, x_held_out, true_directions): drawn from torch's global generator, so a
    case's torch.manual_seed sets them."""
    directions = F.normalize(torch.randn(TRUE_FEATURES, DIM), dim=1)
    n = n_train + n_held_out
    on = (torch.rand(n, TRUE_FEATURES) < ACTIVE).float()
    codes = on * torch.rand(n, TRUE_FEATURES) * 2
    x = codes @ directions
    return x[:n_train], x[n_train:], directions


class SAE(torch.nn.Module):
    """z = relu(W_enc (x - b_dec) + b_enc), x_hat = W_dec z + b_dec (the decoder's columns
    are the dictionary)."""

    def __init__(self, dim=DIM, latents=LATENTS):
        super().__init__()
        self.encoder = torch.nn.Linear(dim, latents)
        self.decoder = torch.nn.Linear(latents, dim)
        with torch.no_grad():
            self.decoder.weight.copy_(F.normalize(torch.randn(dim, latents), dim=0))
            self.encoder.weight.copy_(self.decoder.weight.t())
            self.encoder.bias.zero_()
            self.decoder.bias.zero_()

    def encode(self, x):
        return F.relu(self.encoder(x - self.decoder.bias))

    def forward(self, x):
        z = self.encode(x)
        return self.decoder(z), z


def normalise_decoder(sae):
    """Unit-norm decoder columns (the constraint the L1 penalty needs)."""
    with torch.no_grad():
        sae.decoder.weight.copy_(F.normalize(sae.decoder.weight, dim=0))


def data_batches(x, steps, batch_size=128):
    """``steps`` shuffled batches of rows of ``x`` (torch's global generator)."""
    done = 0
    while True:
        order = torch.randperm(len(x))
        for start in range(0, len(x) - batch_size + 1, batch_size):
            yield x[order[start:start + batch_size]]
            done += 1
            if done == steps:
                return


def metrics(sae, x_held_out, directions):
    with torch.no_grad():
        x_hat, z = sae(x_held_out)
        spread = ((x_held_out - x_held_out.mean(0)) ** 2).sum()
        fvu = float(((x_hat - x_held_out) ** 2).sum() / spread)
        l0 = float((z > 0).float().sum(1).mean())
        cos = directions @ F.normalize(sae.decoder.weight, dim=0)
        mmcs = float(cos.max(1).values.mean())
    return {"mmcs": round(mmcs, 3), "held_out_l0": round(l0, 2), "held_out_fvu": round(fvu, 3)}
