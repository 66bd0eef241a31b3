"""single_blas_thread: BLAS runs on one thread inside the block and gets its threads back after."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

from aesthete_gui.engine.blas import single_blas_thread


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_blas_is_single_threaded_inside_and_restored_after() -> None:
    np.ones((4, 4)) @ np.ones((4, 4))  # BLAS is loaded
    before = _blas_threads()
    assert before, "numpy's BLAS should be visible to threadpoolctl"
    with single_blas_thread():
        assert all(threads == 1 for threads in _blas_threads())
    assert _blas_threads() == before
