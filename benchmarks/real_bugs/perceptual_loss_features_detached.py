"""A restoration network trained with an L1 loss plus a perceptual loss whose feature
maps are recorded DETACHED from the graph: the perceptual term is computed, logged and
added to the loss, but it is a constant to autograd, so it changes no weight and the
network is trained by the L1 term alone. The loss curve looks normal (the L1 part falls),
nothing errors, and the perceptual distance the term was meant to lower stays high.

Reported: "Question about the PerceptualLoss and RecordingProbe" -
https://github.com/myscience/open-genie/issues/6 (the perceptual loss read the real and
fake features through forward-hook probes that stored ``.detach()``-ed activations, "so it
seems the gradient of the perceptual loss won't pass back to update the model"; a second
user: "I removed `detach` and was able to make the gradient flow"). Here a small
convolutional autoencoder (benchmarks/real_bugs/_res177.py) restoring 8x8 digits whose
bottom-right quarter is blanked out, the perceptual network a small convolutional digit
classifier trained first and frozen (as a pretrained VGG is), its features recorded by
forward hooks, Adam. Fix: the hooks keep the activations attached (no ``.detach()``).

Measured (500 steps, batch 64, 512 held-out digits; the perceptual distance, the mean
squared difference of the frozen network's features, and the frozen classifier's accuracy
on the restored digits): seed 0, distance 0.115 and accuracy 0.846 for the bug against
0.092 and 0.859 for the fixed twin; seeds shifted by 1000, 0.134 and 0.840 against 0.104
and 0.871 (the L1 term alone restores the digits, so the harm is the perceptual term's
share: a fifth more feature distance, a point or three of accuracy).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches
from benchmarks.real_bugs._res177 import HELD_OUT, ConvAutoencoder, damaged, feature_network

TITLE = "Question about the PerceptualLoss and RecordingProbe"
LINK = "https://github.com/myscience/open-genie/issues/6"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 500
PERCEPTUAL_WEIGHT = 1.0


class Probe:
    """Records a layer's output through a forward hook."""

    def __init__(self, layer, detach):
        self.detach, self.value = detach, None
        layer.register_forward_hook(self.record)

    def record(self, module, inputs, output):
        self.value = output.detach() if self.detach else output


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train, held_out, held_out_y = x[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    vgg = feature_network(train, y[:-HELD_OUT])
    probes = [Probe(vgg[1], detach=not fixed), Probe(vgg[3], detach=not fixed)]  # BUG: detach

    def perceptual(fake, real):
        vgg(real)
        real_features = [p.value for p in probes]
        vgg(fake)
        return sum(F.mse_loss(p.value, r) for p, r in zip(probes, real_features))

    model = ConvAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64):
            real = train[index]
            fake = model(damaged(real))
            loss = F.l1_loss(fake, real) + PERCEPTUAL_WEIGHT * perceptual(fake, real)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        restored = model(damaged(held_out))
        mon.perceptual_distance = perceptual(restored, held_out).item()
        mon.restored_accuracy = (vgg(restored).argmax(1) == held_out_y).float().mean().item()
    return mon
