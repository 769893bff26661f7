"""Small synthetic data shared by the rule tests (imported as ``synthetic``: pytest puts the
tests folder on the path)."""
import torch


def blobs(steps, classes=4, seed=0, batch=32, features=16):
    """``steps`` batches ``(x, class ids)`` of Gaussian blobs around ``classes`` centres: an
    easy classification task that a healthy loop learns in a few dozen steps."""
    generator = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, features, generator=generator) * 2
    for _ in range(steps):
        y = torch.randint(0, classes, (batch,), generator=generator)
        yield centres[y] + torch.randn(batch, features, generator=generator), y
