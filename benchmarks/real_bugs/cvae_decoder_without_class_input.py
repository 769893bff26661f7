"""A conditional VAE whose decoder is built without the class input: the encoder reads the
digit and its one-hot class, the decoder reads only the latent code. Reconstruction still
works (the code carries the digit's identity) and the ELBO falls like an ordinary VAE's,
but the model cannot be asked for a class: drawing a code from the prior and "giving" the
decoder a class changes nothing, so generated digits are of whatever class the code lands
on. Nothing errors.

Reported: "Bug #3: Add one hot encoded class input in decoder module" -
https://github.com/Ram81/AC-VAEGAN-PyTorch/issues/7 (the author: the model needs its
decode module to take the one-hot class along with the latent vector, so that the class
decides the kind of image generated). Here: a fully connected conditional VAE on the 8x8
digits, Bernoulli pixels, 8 latent dimensions. Fix: concatenate the one-hot class to the
decoder's input.

Measured (1,200 Adam steps, batch 64, seed 0; a digit classifier trained on real digits,
0.92 held out, judges 100 images decoded from prior draws per requested class): the judged
class is the requested one for 0.08 of the bug's images and 1.00 of the fixed twin's; the
negative ELBO on the training digits is 24.3 for the bug and 21.2 for the twin.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._cgan import CLASSES, judge, one_hot
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._vae import vae_loss

TITLE = "Bug #3: Add one hot encoded class input in decoder module"
LINK = "https://github.com/Ram81/AC-VAEGAN-PyTorch/issues/7"
EXPECTED = ("CONDITION_NOT_GIVEN_TO_DECODER",)
STEPS = 1200
LATENT = 8
PER_CLASS = 100


class ConditionalVAE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64 + CLASSES, 128), nn.ReLU())
        self.mu = nn.Linear(128, LATENT)
        self.logvar = nn.Linear(128, LATENT)
        width = LATENT + CLASSES if fixed else LATENT    # BUG: no room for the class
        self.decoder = nn.Sequential(nn.Linear(width, 128), nn.ReLU(), nn.Linear(128, 64))

    def decode(self, z, labels):
        if self.fixed:
            z = torch.cat([z, one_hot(labels)], 1)
        return self.decoder(z)                          # BUG (fixed=False): z alone

    def forward(self, x, labels):
        h = self.encoder(torch.cat([x, one_hot(labels)], 1))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decode(z, labels), mu, logvar


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = ConditionalVAE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, logvar = model(xb, yb)
            loss = vae_loss(logits, xb, mu, logvar)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    clf = judge(x, y)
    state = torch.random.get_rng_state()
    torch.manual_seed(9)
    with torch.no_grad():
        requested = torch.arange(CLASSES).repeat(PER_CLASS)
        images = torch.sigmoid(model.decode(torch.randn(len(requested), LATENT), requested))
        judged = clf(images).argmax(1)
        logits, mu, logvar = model(x, y)
        mon.elbo = vae_loss(logits, x, mu, logvar).item()
    torch.random.set_rng_state(state)
    mon.class_match = (judged == requested).float().mean().item()
    return mon
