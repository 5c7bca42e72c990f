"""Calling a numba kernel from a hot Python loop without the dispatcher's per-call cost.

A numba function called from Python goes through its dispatcher, which works out the numba
type of every argument and looks up the compiled version for them: about 150-250 ns per call
on this project's machines, as much as a small kernel's own work. :func:`direct` compiles
a kernel for one signature (from numba's cache when it is there) and returns that version's
entry point, which only converts the arguments::

    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def total(a, k):
    ...     return a.sum() * k
    >>> fast = direct(total, "(int64[::1], int64)")
    >>> fast(np.arange(4), 2)
    12

The entry point does not check array types: an array argument must have exactly the dtype,
dimensions and layout of the signature (numba would read a different one's memory as if it
had). Use it only where the caller makes the arrays itself, and keep the dispatcher
everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def direct(kernel: Any, signature: str) -> Callable[..., Any]:
    """The compiled entry point of the numba dispatcher ``kernel`` for ``signature`` (numba's
    signature syntax, e.g. ``"(int64[::1], int64)"``), compiled now or loaded from the cache."""
    entry: Callable[..., Any] = kernel.compile(signature)
    return entry
