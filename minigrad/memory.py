"""An opt-in malloc setting that makes NumPy-heavy training steps faster on Linux.

Every primitive returns fresh arrays, and a training step frees most of them again.
glibc's malloc hands freed memory back to the operating system once more than a
threshold lies free at the top of its heap (by default about twice the largest array
freed so far); the next step asks for that memory again and the kernel maps it back
in zeroed, one page fault per 4 KiB page. In the GPT 2x48 benchmark that was 600 to
2,700 page faults per step, 1 to 5 ms of system time on a 5 ms step (torch: 18 faults;
its fused kernels allocate far less). Whether a process lands at 600 or 2,700 depends
on the order of its first allocations, so the same step also varies from run to run.

``keep_freed_memory()`` raises that threshold, so freed memory stays in the process and
is reused: no page faults, and a resident size that stays at its peak between steps
instead of shrinking. The setting is process-wide (torch, NumPy and everything else in
the process share one malloc), exists only with glibc, and minigrad never makes it on
import: a program that wants it calls it.
"""
import ctypes
import sys

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3     # glibc's mallopt parameter numbers
_LARGEST_FROM_HEAP = 32 << 20   # bigger blocks stay separate mappings (glibc's own ceiling)


def keep_freed_memory(limit_mib=256):
    """Keep up to ``limit_mib`` MiB of freed memory for reuse instead of returning it.

    Blocks up to 32 MiB then come from the reusable heap. Returns True where the
    setting took effect (Linux with glibc), False where there is no such setting.
    """
    if isinstance(limit_mib, bool) or not isinstance(limit_mib, (int, float)) or not \
            0 < limit_mib < 2048:
        raise ValueError(f"keep_freed_memory: limit_mib must be a number of MiB in (0, 2048), "
                         f"got {limit_mib!r}; 256 keeps a small model's whole step")
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    kept = mallopt(_M_MMAP_THRESHOLD, _LARGEST_FROM_HEAP) == 1
    return mallopt(_M_TRIM_THRESHOLD, int(limit_mib * (1 << 20))) == 1 and kept
