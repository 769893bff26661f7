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

POOLED_FROM = 32 << 10     # bytes; smaller arrays come from np.empty
_DEFAULT_LIMIT = 256 << 20

_blocks = {}     # size class (bytes) -> list of uint8 blocks of that size
_next = {}       # size class -> where the next search starts (blocks free up in turn)
_state = {"kept": 0, "limit": _DEFAULT_LIMIT}
_lock = threading.Lock()


def _free_index(blocks, start):
    """Index of a block nobody else refers to, searching from ``start``; -1 if none."""
    count = len(blocks)
    for offset in range(count):
        i = (start + offset) % count
        if sys.getrefcount(blocks[i]) <= _FREE_REFS:
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
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < POOLED_FROM:
        return np.empty(shape, dtype)
    step = 1 << max(nbytes.bit_length() - 4, 0)  # rounded up to one of 8 sizes per doubling
    size = -(-nbytes // step) * step            # (at most 1/8 wasted), so near sizes share
    with _lock:
        blocks = _blocks.get(size)
        if blocks is None:
            blocks = _blocks[size] = []
            _next[size] = 0
        i = _next[size]
        if not (i < len(blocks) and sys.getrefcount(blocks[i]) <= _FREE_REFS):
            i = _free_index(blocks, i) if blocks else -1
        if i < 0:
            if _state["kept"] + size > _state["limit"] and not _make_room(size):
                return np.empty(shape, dtype)
            i = len(blocks)
            blocks.append(np.empty(size, np.uint8))
            _state["kept"] += size
        _next[size] = i + 1 if i + 1 < len(blocks) else 0
        return np.ndarray(shape, dtype, blocks[i])


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
    np.copyto(out, array)
    return out


def _make_room(size):
    """Drop free blocks until ``size`` more bytes fit under the limit (lock held)."""
    for blocks in _blocks.values():
        for i in range(len(blocks) - 1, -1, -1):
            if _state["kept"] + size <= _state["limit"]:
                return True
            if sys.getrefcount(blocks[i]) <= _FREE_REFS:
                _state["kept"] -= blocks.pop(i).size
    for key, blocks in _blocks.items():
        _next[key] = 0
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
