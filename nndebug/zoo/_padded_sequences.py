"""Padded batches of a learnable next-token task, as NumPy arrays (both frameworks' cases).

Each sequence counts through the ids 1..15 from a random start with a random stride (1, 2
or 3), so after two tokens the next one is certain; sequences have random lengths and the
shorter ones are padded at the end with ``PAD`` (id 0), in the inputs and in the targets,
as a collate function that pads to the longest sequence does.
"""
import numpy as np

PAD = 0
VOCAB = 16                   # PAD and the 15 real ids


def padded_batches(steps, batch=16, length=16, shortest=4, seed=0):
    """``steps`` pairs ``(ids, targets)`` of shape (batch, length), int64, PAD-padded."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        start = rng.integers(0, VOCAB - 1, size=(batch, 1))
        stride = rng.integers(1, 4, size=(batch, 1))
        seq = (start + stride * np.arange(length + 1)) % (VOCAB - 1) + 1
        ids, targets = seq[:, :length].copy(), seq[:, 1:].copy()
        lengths = rng.integers(shortest, length + 1, size=batch)
        padded = np.arange(length)[None, :] >= lengths[:, None]
        ids[padded] = PAD
        targets[padded] = PAD
        yield ids.astype(np.int64), targets.astype(np.int64)
