"""Reused output arrays (minigrad/ops/buffers.py): reuse must never be visible.

A block may be handed out again only when no array made on it is alive, gradients
read from ``.grad`` must not share memory with anything else, and the engine's
in-place sums must add every use exactly once.
"""
import numpy as np
import pytest

import minigrad as mg
from minigrad.ops import buffers

BIG = (256, 64)   # 64 KiB of float32: above buffers.POOLED_FROM, so it comes from a block


def test_a_block_is_reused_only_once_nothing_refers_to_it():
    first = buffers.empty(BIG, np.float32)
    first[...] = 1.0
    view = first[3:]                  # a view keeps the block busy after `first` is gone
    block = id(first.base)            # (its id: holding the block itself would keep it busy)
    del first
    for _ in range(4):
        other = buffers.empty(BIG, np.float32)
        assert id(other.base) != block
        other[...] = 2.0
        del other
    assert np.all(view == 1.0)        # nobody wrote into the memory the view still reads
    del view
    reused = [buffers.empty(BIG, np.float32) for _ in range(8)]
    assert any(id(a.base) == block for a in reused)


def test_small_arrays_come_from_numpy_and_shapes_dtypes_are_kept():
    small = buffers.empty((3, 4), np.float64)
    assert small.base is None and small.shape == (3, 4) and small.dtype == np.float64
    big = buffers.empty(BIG, "float64")
    assert big.shape == BIG and big.dtype == np.float64 and big.flags.c_contiguous
    assert np.all(buffers.zeros(BIG, np.float32) == 0)
    source = np.arange(np.prod(BIG), dtype=np.float32).reshape(BIG)[:, ::-1]
    copied = buffers.copy(source)
    assert np.array_equal(copied, source) and copied.flags.c_contiguous
    assert not np.shares_memory(copied, source)


def test_limit_zero_turns_reuse_off_and_release_gives_memory_back():
    previous = buffers.set_limit(0)
    try:
        assert buffers.kept_bytes() == 0
        array = buffers.empty(BIG, np.float32)
        assert array.base is None      # over the limit: a plain NumPy array
    finally:
        buffers.set_limit(previous)
    held = buffers.empty(BIG, np.float32)
    buffers.empty(BIG, np.float32)     # made and dropped: its block is free again
    dropped = buffers.release()
    assert dropped >= held.nbytes
    assert buffers.kept_bytes() >= held.nbytes   # the block still in use stays
    with pytest.raises(ValueError, match="MiB"):
        buffers.set_limit(-1)


def test_gradients_of_two_leaves_added_together_do_not_share_memory():
    x = mg.tensor(np.ones(BIG, np.float32), requires_grad=True)
    y = mg.tensor(np.ones(BIG, np.float32), requires_grad=True)
    (x + y).sum().backward()          # add's backward hands the same array to both inputs
    assert not np.shares_memory(x.grad, y.grad)
    x.grad *= 3.0
    assert np.all(y.grad == 1.0) and np.all(x.grad == 3.0)


def test_a_tensor_used_many_times_gets_every_gradient_once():
    rng = np.random.default_rng(0)
    values = rng.standard_normal(BIG).astype(np.float32)
    x = mg.tensor(values, requires_grad=True)
    total = x + x * 2.0 + x * 3.0 + x     # four uses: the later ones add into the engine's sum
    total.sum().backward()
    np.testing.assert_allclose(x.grad, np.full(BIG, 7.0, np.float32))
    held = x.grad
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad, 2 * values, rtol=1e-6)
    np.testing.assert_allclose(held, 7.0)     # the first .grad was not written over


def test_training_steps_reuse_their_blocks():
    from minigrad.examples.models import make_gpt, minigrad_framework
    fw = minigrad_framework()
    model = make_gpt(fw, 16, block_size=32, n_embd=48, n_head=4, n_layer=1)
    optimizer = fw.optim.SGD(model.parameters(), lr=0.01)
    ids = fw.tensor(np.random.default_rng(1).integers(0, 16, (16, 33)))

    def step():
        optimizer.zero_grad()
        _, loss = model(ids[:, :-1], ids[:, 1:])
        loss.backward()
        optimizer.step()
    for _ in range(3):
        step()
    kept = buffers.kept_bytes()
    for _ in range(5):
        step()
    assert buffers.kept_bytes() == kept   # the same blocks serve every step


@pytest.mark.parametrize("make", [
    lambda r: r.standard_normal((3, 16, 4, 32, 12)).astype(np.float32).transpose(1, 3, 0, 2, 4),
    lambda r: r.standard_normal((40, 30, 12))[::-1],                      # reversed rows
    lambda r: r.standard_normal((64, 64, 7))[:, ::2],                     # every other row
    lambda r: r.integers(0, 9, (50, 40, 3)).transpose(1, 0, 2),
    lambda r: r.standard_normal((4, 100, 8)).astype(">f8").transpose(1, 0, 2),
    lambda r: r.standard_normal((300, 80)).T,                             # rows not contiguous
    lambda r: np.zeros((0, 5, 3)).transpose(1, 0, 2),
])
def test_copy_gives_the_same_values_c_ordered_whatever_the_layout(make):
    """Short contiguous rows in another order are copied as byte blocks: same values, dtype."""
    array = make(np.random.default_rng(0))
    out = buffers.copy(array)
    assert out.flags.c_contiguous and out.dtype == array.dtype and out.shape == array.shape
    np.testing.assert_array_equal(out, array)
