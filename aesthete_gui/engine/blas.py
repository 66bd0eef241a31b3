"""One BLAS thread for small iterative fits: on L-BFGS-sized problems extra threads only add waiting."""

from __future__ import annotations

from contextlib import AbstractContextManager

from threadpoolctl import threadpool_limits


def single_blas_thread() -> AbstractContextManager[object]:
    """A context in which BLAS (OpenBLAS, MKL, …) runs on one thread, restored on exit."""
    return threadpool_limits(limits=1, user_api="blas")
