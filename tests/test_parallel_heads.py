"""The depth profile's last layer when the chain ends in parallel heads (real-bug batch 200).
An architecture controller keeps one output head per decision in an nn.ModuleList; at seeds
+ 1000 its healthy twin's last decision grew sure, and that one head's relative gradient
(4e-8, its siblings 7e-5 to 3e-2) against the first layer's 8e-3 read as EXPLODING_GRADIENTS.
The last layer's level is now the median over trailing sibling heads of one shape that
cannot feed one another; an nn.Sequential's layers (a chain) are read as before."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import nas_controller_credits_argmax_for_exploratory_action as nas  # noqa: E402,E501
from nndebug.rules.context import last_level  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class _Param:
    def __init__(self, name, shape):
        self.name, self.shape = name, shape


class _Ctx:
    def __init__(self, params):
        self.run = type("Run", (), {"params": params})()
        self.chain_weights = list(range(len(params)))


def test_parallel_heads_are_read_by_their_median():
    params = [_Param("start", (1, 32)), _Param("cell.weight_ih", (128, 32))] + \
        [_Param(f"heads.{k}.weight", (4, 32)) for k in range(4)]
    profile = np.array([8e-3, 2e-3, 8e-3, 2e-3, 3e-3, 4e-8])
    assert last_level(_Ctx(params), profile) == pytest.approx(np.median(profile[-4:]))


def test_a_sequential_chain_keeps_its_last_layer():
    params = [_Param("net.0.weight", (64, 16)), _Param("net.2.weight", (64, 64)),
              _Param("net.4.weight", (64, 64)), _Param("net.6.weight", (10, 64))]
    profile = np.array([1e-3, 2e-3, 3e-3, 4e-3])
    assert last_level(_Ctx(params), profile) == 4e-3
    square = [_Param(f"blocks.{k}.weight", (64, 64)) for k in range(4)]   # could be a chain
    assert last_level(_Ctx(square), profile) == 4e-3


def test_the_controller_twin_at_shifted_seeds_is_silent():
    with shifted_seeds(1000):
        mon = nas.run(fixed=True)
    assert mon.held_out_best_decisions == 6
    assert not {f.code for f in mon.findings() if f.severity in ("warning", "error")}
