"""The discriminator's gradients are not cleared between the generator's step and its own:
the generator's adversarial loss (fakes labelled real) was backpropagated through the
discriminator too, and that gradient is still in the discriminator's .grad when its own
loss adds to it. The discriminator's update then also pushes it towards calling the fakes
real, the opposite of its own fake term, and it learns to tell real from fake far worse.

Reported: "The gan template does not seem to set properly the gradients of the
discriminator to zero" - https://github.com/Lightning-AI/pytorch-lightning/issues/557 ("In
each iteration at the beginning of the discriminator training, the gradient is not set to
zero ... The `optimizer.zero_grad()` for discriminator is then only called once all the
gradients are accumulated, including the ones coming from the update of the generator").
Here a conditional GAN on the digits: a generator completes the lower half of a digit from
its upper half, the generator's step first (its optimizer zeroes only the generator), then
the discriminator's, which zeroes its gradients only after its step. Fix: zero the
discriminator's gradients before its backward (``opt_d.zero_grad()`` first).

How watch finds it: every backward delivered what the discriminator's .grad holds (the
generator's backward ran since its last step too), so GRADIENTS_ACCUMULATING, which compares
the two, has nothing to see; as it came only the symptom, LOSS_PLATEAU, was named. On the
first watched steps the monitor copies one discriminator gradient when the generator's
optimizer steps and sums what reaches it afterwards: at the discriminator's step its .grad
is the copy plus that sum, the generator's gradient carried into its update, where the fixed
twin's is the sum alone. That is GRADIENT_CARRIED_FROM_OTHER_TURN.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = ("The gan template does not seem to set properly the gradients of the "
         "discriminator to zero")
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/557"
EXPECTED = ("GRADIENT_CARRIED_FROM_OTHER_TURN", "GRADIENTS_ACCUMULATING")
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    generator = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Sigmoid())
    discriminator = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3, betas=(0.5, 0.999))
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
    with nd.watch(discriminator, opt_d, **watch) as mon:
        for real, _ in batches(x, y, steps):
            top = real[:, :32]
            fake = torch.cat([top, generator(top)], dim=1)
            opt_g.zero_grad()
            g_loss = F.binary_cross_entropy_with_logits(discriminator(fake), ones)
            g_loss.backward()          # reaches the discriminator's parameters too
            opt_g.step()
            if fixed:
                opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(discriminator(real), ones) + \
                F.binary_cross_entropy_with_logits(discriminator(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            opt_d.zero_grad()          # BUG (without the fix above): cleared only here
            mon.step(d_loss)
    return mon

