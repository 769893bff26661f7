"""minigrad: a NumPy autograd engine small enough to read, made to be broken.

    import minigrad as mg
    x = mg.tensor([[1.0, 2.0]], requires_grad=True)
    (x * x).sum().backward()
    x.grad   # array([[2., 4.]], dtype=float32)
"""
import numpy as np

from .autograd import Function, Context, no_grad, enable_grad, is_grad_enabled
from .tensor import Tensor, tensor, set_default_dtype, get_default_dtype
from .random import manual_seed, get_rng_state, set_rng_state
from . import ops
from .ops import sequence as _sequence_ops  # noqa: F401  (recurrent cells, attention)
from .ops import (cat, stack, where, maximum, minimum, exp, log, tanh, sigmoid, relu, matmul,
                  einsum, outer, tril, triu, split, chunk, clamp, softmax, log_softmax, sum, mean,
                  amax, amin, argmax, argmin, var, std, prod, logsumexp, cumsum, norm, sin, cos,
                  erf, sqrt, abs, flatten, squeeze, unsqueeze, transpose, permute, reshape,
                  gather, index_select, masked_fill, clone)
from .factories import (zeros, ones, empty, full, zeros_like, ones_like, empty_like, full_like,
                        eye, arange, linspace, rand, randn, randint, rand_like, randn_like,
                        randint_like)

# dtype names as torch spells them: mg.zeros(3, dtype=mg.float64)
float16, float32, float64 = np.float16, np.float32, np.float64
int32, int64, long, bool = np.int32, np.int64, np.int64, np.bool_

__version__ = "0.1.0"


def __getattr__(name):
    # nn, optim, bugs, interop, data import lazily so `import minigrad` stays light
    import importlib
    if name in ("nn", "optim", "bugs", "interop", "data"):
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'minigrad' has no attribute {name!r}")
