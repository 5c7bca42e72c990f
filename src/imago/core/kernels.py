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

Inside kernels, :data:`borrowed` drops the reference counting of an array argument that numba
would otherwise do at every call of a helper (see its note).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def direct(kernel: Any, signature: str) -> Callable[..., Any]:
    """The compiled entry point of the numba dispatcher ``kernel`` for ``signature`` (numba's
    signature syntax, e.g. ``"(int64[::1], int64)"``), compiled now or loaded from the cache."""
    entry: Callable[..., Any] = kernel.compile(signature)
    return entry


def _borrowed_intrinsic() -> Any:
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic  # type: ignore[misc]
    def borrowed(typingctx: Any, array: Any) -> Any:
        if not isinstance(array, types.Array):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            source = context.make_array(signature.args[0])(context, builder, args[0])
            view = context.make_array(signature.return_type)(context, builder)
            cgutils.copy_struct(view, source)  # type: ignore[no-untyped-call]
            view.meminfo = cgutils.get_null_value(view.meminfo.type)  # type: ignore[no-untyped-call]
            return view._getvalue()

        return array(array), codegen

    return borrowed


borrowed = _borrowed_intrinsic()
"""Inside a kernel, ``a = borrowed(a)`` makes ``a`` an array without an owner to count.

numba counts the references of every array it passes to a function it does not inline, with
an atomic add and subtract each time: in a kernel that calls a dozen helpers a move, 11 % of
the time of a public Go move went to those counts. A borrowed array has no owner to count, so
each of them is a test of a null pointer. It is safe only while someone else holds the array
for the whole call, as Python does for an argument (the caller's reference lives until the
kernel returns); never borrow an array the kernel makes, returns or keeps."""


def _int64_pointer_intrinsic() -> Any:
    from numba.core import types
    from numba.extending import intrinsic

    pointer = types.CPointer(types.int64)  # type: ignore[no-untyped-call]

    @intrinsic  # type: ignore[misc]
    def int64_pointer(typingctx: Any, address: Any) -> Any:
        if not isinstance(address, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.inttoptr(args[0], context.get_value_type(pointer))

        return pointer(address), codegen

    return int64_pointer


int64_pointer = _int64_pointer_intrinsic()
"""Inside a kernel, ``numba.carray(int64_pointer(address), n)`` is the ``n`` int64 words at
``address`` as an array, without an owner (as :data:`borrowed` makes one).

A Python caller can then pass an array it holds as one integer, its address: numba converts
an integer argument without allocating, where for an array argument it allocates a record of
its owner and counts references on each call. Nothing checks the address: use it only for
memory the caller holds for the whole call and knows the length of."""


def _move_words_intrinsic() -> Any:
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic  # type: ignore[misc]
    def move_words(typingctx: Any, dst: Any, d0: Any, src: Any, s0: Any, n: Any) -> Any:
        arrays = (dst, src)
        if not all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C" for a in arrays):
            return None
        if dst.dtype != src.dtype or not all(isinstance(i, types.Integer) for i in (d0, s0, n)):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            to = context.make_array(signature.args[0])(context, builder, args[0])
            start = context.make_array(signature.args[2])(context, builder, args[2])
            size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
            cgutils.raw_memmove(  # type: ignore[no-untyped-call]
                builder,
                builder.gep(to.data, [args[1]]),
                builder.gep(start.data, [args[3]]),
                args[4],
                size,
            )
            return context.get_dummy_value()

        return types.none(dst, d0, src, s0, n), codegen

    return move_words


move_words = _move_words_intrinsic()
"""Inside a kernel, ``move_words(dst, d0, src, s0, n)`` is ``dst[d0 : d0 + n] = src[s0 : s0 + n]``
for one-dimensional contiguous arrays of one dtype, as C's ``memmove`` (the parts may
overlap). numba's own slice assignment allocates when the parts may overlap, and a loop of
element copies stays a loop of single words (each index may be negative, so LLVM does not
turn it into a block copy). Nothing is checked: the caller keeps both parts inside their
arrays."""
