"""benchmarks.bench_real_bugs.shifted_seeds: the seeds a case sets are moved while inside,
and torch's and numpy's seeding functions are given back as they were afterwards."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402


def _draws():
    torch.manual_seed(3)
    np.random.seed(3)
    return (torch.rand(3), np.random.rand(3), np.random.default_rng(3).random(3))


def _draws_at(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)
    return (torch.rand(3), np.random.rand(3), np.random.default_rng(seed).random(3))


def test_seeds_are_moved_inside_and_restored_after():
    functions = (torch.manual_seed, np.random.seed, np.random.default_rng)
    with shifted_seeds(1000):
        inside = _draws()
        np.random.seed([1, 2])                       # a DataLoader worker's list seed
        assert np.random.default_rng(None) is not None
    assert (torch.manual_seed, np.random.seed, np.random.default_rng) == functions
    expected = _draws_at(1003)
    assert all(np.allclose(np.asarray(a), np.asarray(b)) for a, b in zip(inside, expected))
    assert not np.allclose(_draws()[0].numpy(), expected[0].numpy())
    with shifted_seeds(0):
        assert torch.manual_seed is functions[0]
