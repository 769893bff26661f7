"""Output arrays reused from one training step to the next, so a step need not fault its memory in.

Why. Every primitive returns a fresh array, and a training step frees almost all of them
again when its graph goes. glibc's malloc hands a large free stretch at the top of its
heap back to the operating system, and the next step touches those pages again: one
page fault per 4 KiB, each a zeroed page the kernel maps in. In the GPT 4x128 benchmark
that was ~35,000 faults and ~65 ms of system time in a ~150 ms step (torch: ~1,700).
``minigrad.memory.keep_freed_memory()`` cures it by changing malloc for the whole
process, so it stays opt-in; this module cures it for minigrad's own large arrays only.

How. ``empty(shape, dtype)`` hands out an array whose memory is a block of bytes this
module keeps. A block is free again when nothing but this module refers to it: an
array made on a block (and every view of that array, a Tensor's ``.data``, a
``torch.from_numpy`` of it) holds a reference to the block (NumPy's ``.base``), so the
block's reference count says whether any of them is still alive. No live array's
memory is ever handed out twice: to its users a reused block is a fresh array.

Small arrays (under ``POOLED_FROM`` bytes) come from NumPy as usual: malloc reuses
small chunks without faults, and looking a block up costs about a microsecond. At most
``limit`` bytes are kept (``set_limit``); past it, free blocks are dropped first and
then arrays come from NumPy again. ``release()`` drops every free block.
"""
import math
import sys
import threading

import numpy as np

POOLED_FROM = 32 << 10     # bytes; smaller arrays come from np.empty (fixed at import)
_DEFAULT_LIMIT = 256 << 20

_pools = {}      # size class (bytes) -> [where the next search starts, uint8 blocks...]
_sizes = {}      # (shape, dtype) asked for -> its size class (0: not pooled)
_state = {"kept": 0, "limit": _DEFAULT_LIMIT}
_lock = threading.Lock()


def _free_index(pool, start):
    """Index in ``pool`` (its blocks from index 1 on) of a block nobody else refers to,
    searching from ``start`` and wrapping around; -1 if every block is in use."""
    count = len(pool) - 1
    for offset in range(count):
        i = (start - 1 + offset) % count + 1
        if sys.getrefcount(pool[i]) <= _FREE_REFS:
            return i
    return -1


def _references_of_a_free_block():
    """What ``sys.getrefcount(blocks[i])`` gives for a block only its list holds.

    Measured rather than assumed (2 in CPython 3.11: the list's and the call's own).
    """
    blocks = [np.empty(1, np.uint8)]
    return sys.getrefcount(blocks[0])


_FREE_REFS = _references_of_a_free_block()


def empty(shape, dtype):
    """An uninitialised C-ordered array of ``shape`` and ``dtype`` that nobody else holds."""
    try:
        size = _sizes[shape, dtype]
    except (KeyError, TypeError):   # a shape not seen yet (or a list)
        size = _size_class(shape, dtype)
    if not size:
        return np.empty(shape, dtype)
    _lock.acquire()
    try:
        pool = _pools.get(size)
        if pool is None:
            pool = _pools[size] = [1]   # where the next search starts, then the blocks
        i = pool[0]
        if not (i < len(pool) and sys.getrefcount(pool[i]) <= _FREE_REFS):
            i = _free_index(pool, i)
        if i < 0:
            if _state["kept"] + size > _state["limit"] and not _make_room(size):
                return np.empty(shape, dtype)
            i = len(pool)
            pool.append(np.empty(size, np.uint8))
            _state["kept"] += size
        pool[0] = i + 1
        return np.ndarray(shape, dtype, pool[i])
    finally:
        _lock.release()


def _size_class(shape, dtype):
    """The block size for an array: its bytes rounded up to one of 8 sizes per doubling (at
    most 1/8 wasted, so arrays of near sizes share blocks); 0 for a small array. Remembered
    per shape and dtype, since a training step asks for the same few again and again."""
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    step = 1 << max(nbytes.bit_length() - 4, 0)
    size = 0 if nbytes < POOLED_FROM else -(-nbytes // step) * step
    try:
        if len(_sizes) > 4096:
            _sizes.clear()
        _sizes[shape, dtype] = size
    except TypeError:   # unhashable (a list): not remembered
        pass
    return size


def empty_like(array):
    """``empty(array.shape, array.dtype)``."""
    return empty(array.shape, array.dtype)


def zeros(shape, dtype):
    """A zero-filled array that nobody else holds."""
    out = empty(shape, dtype)
    out.fill(0)
    return out


def copy(array):
    """A C-ordered copy of ``array`` in memory nobody else holds."""
    out = empty(array.shape, array.dtype)
    if _short_contiguous_rows(array):
        # Attention's heads moved back beside each other: rows of 12 floats, each contiguous,
        # in another order. NumPy copies floats in one small loop per row; seen as one opaque
        # block per row (a void dtype of the row's bytes), the same bytes copy ~1.5-5x faster.
        row = np.dtype((np.void, array.shape[-1] * array.itemsize))
        np.copyto(out.view(row), array.view(row))
    else:
        np.copyto(out, array)
    return out


SHORT_ROW_BYTES = 256   # longer contiguous rows copy as fast as floats as they do as blocks


def _short_contiguous_rows(array):
    """``array`` is not C-contiguous, but its last axis is: short rows of plain numbers."""
    return (array.ndim > 1 and 1 < array.shape[-1] and array.strides[-1] == array.itemsize
            and array.shape[-1] * array.itemsize <= SHORT_ROW_BYTES
            and not array.flags.c_contiguous and not array.dtype.hasobject)


def _make_room(size):
    """Drop free blocks until ``size`` more bytes fit under the limit (lock held)."""
    for pool in _pools.values():
        pool[0] = 1
        for i in range(len(pool) - 1, 0, -1):
            if _state["kept"] + size <= _state["limit"]:
                return True
            if sys.getrefcount(pool[i]) <= _FREE_REFS:
                _state["kept"] -= pool.pop(i).size
    return _state["kept"] + size <= _state["limit"]


def release():
    """Drop every free block (their memory goes back to malloc); returns the bytes dropped."""
    with _lock:
        before = _state["kept"]
        limit, _state["limit"] = _state["limit"], 0
        _make_room(1 << 62)
        _state["limit"] = limit
        return before - _state["kept"]


def set_limit(mib):
    """Keep at most ``mib`` MiB of blocks (0 turns reuse off); returns the previous limit."""
    if isinstance(mib, bool) or not isinstance(mib, (int, float)) or not 0 <= mib < 1 << 20:
        raise ValueError(f"set_limit: give a number of MiB >= 0, got {mib!r}")
    with _lock:
        previous = _state["limit"] / (1 << 20)
        _state["limit"] = int(mib * (1 << 20))
    release()
    return previous


def kept_bytes():
    """Bytes held in blocks now, in use or free."""
    return _state["kept"]
