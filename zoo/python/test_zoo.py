"""The zoo's pytest entry point: the first two seeds in their own shape.

Both reports come from a pytest suite run with pytest-run-parallel: several
threads run copies of one test in one process, and a failure shows up as
``FAILED ...::test_... - <exception>``. These tests do the same through
ctypes (which releases the GIL during each call, so the threads really run
the C code at the same time) against libzoo.so, the shared-library build of
zoo/registry_aba.c and zoo/deferred_cleanup.c.

Environment:
  ZOO_LIB      path of libzoo.so (default: build/zoo/libzoo.so relative to
               the repository root, two folders above this file)
  ZOO_FIXED    1 to call the fixed variants
  ZOO_THREADS  parallel copies of each test (default 4, as --parallel-threads=4)
  ZOO_ITERS    runs of the test body per copy (default: per test, below)
"""

import ctypes
import os
import pathlib
import threading

HERE = pathlib.Path(__file__).resolve().parent
LIB_PATH = os.environ.get("ZOO_LIB") or str(HERE.parent.parent / "build" / "zoo" / "libzoo.so")
FIXED = int(os.environ.get("ZOO_FIXED", "0") or "0")
THREADS = int(os.environ.get("ZOO_THREADS", "4") or "4")


class CUDAError(Exception):
    """What cuda.core raises for a failed driver call."""


_lib = None


def _load():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(LIB_PATH)
        for name in ("zoo_registry_test", "zoo_deferred_test"):
            fn = getattr(lib, name)
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
            fn.restype = ctypes.c_int
        _lib = lib
    return _lib


def _raise_from(message):
    """Re-raise a C-side failure as the exception the real test would see."""
    first, _, rest = message.partition("\n")
    kind, _, text = first.partition(": ")
    detail = text + ("\n" + rest if rest else "")
    if kind == "CUDAError":
        raise CUDAError(detail)
    if kind == "RuntimeError":
        raise RuntimeError(detail)
    raise AssertionError(detail)


def _run_parallel(fn, iters):
    """Run fn in THREADS threads (as pytest-run-parallel does), iters times each."""
    errors = []
    start = threading.Barrier(THREADS)

    def copy():
        buf = ctypes.create_string_buffer(1024)
        start.wait()
        for _ in range(iters):
            if errors:
                return
            if fn(FIXED, buf, len(buf)) != 0:
                errors.append(buf.value.decode())
                return

    threads = [threading.Thread(target=copy) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        _raise_from(errors[0])


def _iters(default):
    return int(os.environ.get("ZOO_ITERS", "") or default)


def test_destroying_child_node_invalidates_embedded_handles():
    """Seed 000: a reused raw graph handle resolves to another thread's stale box."""
    _run_parallel(_load().zoo_registry_test, _iters(200))


def test_kernel_args_buffer_lifetime():
    """Seed 001: deferred payload cleanup lags past _wait_until's deadline."""
    _run_parallel(_load().zoo_deferred_test, _iters(4))
