"""Pieces batch 343's masked-autoencoder reports share (kept small: each case shows its
bug): the 8x8 digits as 1x8x8 images split into training and held-out rows, cut into 16
patches of 2x2 pixels, and a tiny MAE written the way the paper's reference code lays it
out - random masking by an argsort of uniform noise, an encoder over the kept patches only,
mask tokens appended and the order restored with the inverse permutation, a one-layer
decoder that predicts every patch's pixels."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches
from benchmarks.real_bugs._vision import encoder, patches

PATCH = 2
TOKENS = 16                      # (8 / 2) ** 2 patches
PIXELS = PATCH * PATCH
KEEP = 4                         # a masking ratio of 0.75
HELD_OUT = 397


def digits():
    """(train images, train labels, held-out images, held-out labels), a fixed split."""
    x, y = classification(images=True)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(7))
    x, y = x[order], y[order]
    return x[HELD_OUT:], y[HELD_OUT:], x[:HELD_OUT], y[:HELD_OUT]


def random_masking(batch, generator=None):
    """MAE's masking: argsort of uniform noise. Returns ids_keep (B, KEEP), the binary mask
    (B, TOKENS; 1 = masked) in the original patch order, and ids_restore."""
    noise = torch.rand(batch, TOKENS, generator=generator)
    ids_shuffle = noise.argsort(dim=1)
    ids_restore = ids_shuffle.argsort(dim=1)
    mask = torch.ones(batch, TOKENS)
    mask[:, :KEEP] = 0
    mask = torch.gather(mask, 1, ids_restore)
    return ids_shuffle[:, :KEEP], mask, ids_restore


class TinyMAE(nn.Module):
    def __init__(self, dim=32, decoder_dim=32):
        super().__init__()
        self.embed = nn.Linear(PIXELS, dim)
        self.position = nn.Parameter(torch.randn(1, TOKENS, dim) * 0.02)
        self.encoder = encoder(dim, depth=2)
        self.norm = nn.LayerNorm(dim)
        self.enc_to_dec = nn.Linear(dim, decoder_dim)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, decoder_dim))
        self.decoder_position = nn.Parameter(torch.randn(1, TOKENS, decoder_dim) * 0.02)
        self.decoder = encoder(decoder_dim, depth=1)
        self.head = nn.Linear(decoder_dim, PIXELS)

    def encode(self, images, ids_keep=None):
        tokens = self.embed(patches(images, PATCH)) + self.position
        if ids_keep is not None:
            index = ids_keep[..., None].expand(-1, -1, tokens.shape[-1])
            tokens = torch.gather(tokens, 1, index)
        return self.norm(self.encoder(tokens))

    def decode(self, latent, ids_restore):
        kept = self.enc_to_dec(latent)
        b, k, d = kept.shape
        full = torch.cat([kept, self.mask_token.expand(b, TOKENS - k, d)], dim=1)
        full = torch.gather(full, 1, ids_restore[..., None].expand(-1, -1, d))
        return self.head(self.decoder(full + self.decoder_position))

    def forward(self, images, ids_keep, ids_restore):
        return self.decode(self.encode(images, ids_keep), ids_restore)


def masked_patch_mse(model, images, seed=12345):
    """Held-out reconstruction: squared error on the masked patches only (masks drawn from
    a fixed generator, the same for every run), in pixel units."""
    model.eval()
    with torch.no_grad():
        ids_keep, mask, ids_restore = random_masking(len(images),
                                                     torch.Generator().manual_seed(seed))
        error = ((model(images, ids_keep, ids_restore) - patches(images, PATCH)) ** 2).mean(-1)
    model.train()
    return float((error * mask).sum() / mask.sum())


def linear_probe(model, x, y, xh, yh, steps=300):
    """Accuracy of a logistic regression trained on the frozen encoder's mean-pooled
    features of every patch (no masking), trained with its own fixed seed."""
    model.eval()
    with torch.no_grad():
        f, fh = model.encode(x).mean(1), model.encode(xh).mean(1)
    model.train()
    mean, std = f.mean(0), f.std(0) + 1e-6
    f, fh = (f - mean) / std, (fh - mean) / std
    probe = nn.Linear(f.shape[1], 10)
    opt = torch.optim.Adam(probe.parameters(), lr=1e-2)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.cross_entropy(probe(f), y).backward()
        opt.step()
    with torch.no_grad():
        return float((probe(fh).argmax(1) == yh).float().mean())


_PRETRAINED = {}


def pretrained_mae(x, steps=200):
    """A healthy MAE pretrained on ``x`` (loss on the masked patches, AdamW, batches of 64),
    drawn from the torch seed in force when it is called; the weights are kept per seed, so
    a case's bug run and its twin (which pretrain identically) train it once."""
    seed = torch.initial_seed()
    model = TinyMAE()
    if seed not in _PRETRAINED:
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
        for index in index_batches(len(x), steps, batch_size=64, seed=int(seed) % 2 ** 31):
            images = x[index]
            ids_keep, mask, ids_restore = random_masking(len(images))
            error = ((model(images, ids_keep, ids_restore)
                      - patches(images, PATCH)) ** 2).mean(-1)
            loss = (error * mask).sum() / mask.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        _PRETRAINED[seed] = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(_PRETRAINED[seed])
    return model
