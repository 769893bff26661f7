"""minigrad's own random generator, the counterpart of ``torch.manual_seed``.

Dropout masks and weight initialisation draw from this one generator, so a
seed makes a whole training run repeatable, and a tool can save the state,
replay a forward pass with the same dropout mask, and put the state back.
"""
import copy

import numpy as np

_generator = np.random.default_rng(0)


def generator():
    """The generator every random minigrad operation draws from."""
    return _generator


def manual_seed(seed):
    """Reset minigrad's generator from an integer seed."""
    global _generator
    if not isinstance(seed, (int, np.integer)):
        raise TypeError(f"manual_seed expects an integer seed, got {type(seed).__name__}")
    _generator = np.random.default_rng(int(seed))
    return _generator


def get_rng_state():
    """A copy of the generator's state, to be given back to ``set_rng_state``."""
    return copy.deepcopy(_generator.bit_generator.state)


def set_rng_state(state):
    """Restore a state taken with ``get_rng_state``."""
    if not isinstance(state, dict) or "bit_generator" not in state:
        raise TypeError("set_rng_state expects the dict returned by minigrad.get_rng_state(), "
                        f"got {type(state).__name__}")
    _generator.bit_generator.state = copy.deepcopy(state)
