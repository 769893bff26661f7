"""One family of torch CPU kernels for every verdict the tests and the real-bug benchmark check.

torch picks its vectorised CPU kernels by what the processor offers (AVX2, AVX-512, ...),
and the families round differently. Most training runs end the same either way, but a run
that sits on a knife's edge does not: a softmax that underflows to an exact zero at step
450 on one, and never on the other; a LoRA run whose loss first leaps at step 40 on one
and at step 70 on the other. The verdicts in ``tests/`` and the README's real-bug table were
measured with the AVX2 kernels; on a processor with AVX-512, 4 of the 512 cases end
differently (found by the test suite on such a machine: the README's real-bug section names
them). So the tests and ``bench_real_bugs`` ask torch for the AVX2 kernels on every x86
processor that has them, and the same code gives the same verdict on any of those
machines. It changes no result on a machine whose best family is AVX2, and speed
benchmarks never call it (they measure the kernels the machine would really use).

``ATEN_CPU_CAPABILITY`` is read when torch starts, so this must run before torch is
imported; a value the user set is kept.
"""
import os
import platform
import sys

KERNELS = "avx2"


def _has_avx2():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return any(line.startswith("flags") and " avx2" in line for line in cpuinfo)
    except OSError:                      # not Linux: leave torch's own choice
        return False


def use_avx2_kernels():
    """Ask torch for its AVX2 kernels on an x86 processor that has them (see module doc);
    True when the setting is in place (set here or before), False where it does not apply."""
    if "torch" in sys.modules and "ATEN_CPU_CAPABILITY" not in os.environ:
        return False                     # too late: torch has chosen already
    if platform.machine().lower() not in ("x86_64", "amd64") or not _has_avx2():
        return False
    os.environ.setdefault("ATEN_CPU_CAPABILITY", KERNELS)
    return True
