"""imago: a toolkit and engine for playing, studying and training AI for Go and Othello.

Layers, imports flowing one way::

    core -> games -> records -> agents -> gtp -> nn / train -> arena, ui, bench -> cli
"""

__version__ = "0.1.0"


def _drop_stale_kernels() -> None:
    """Drop numba's cached kernels if a kernel module changed (:mod:`imago._kernel_cache`)."""
    import os

    from imago._kernel_cache import drop_stale

    drop_stale(os.path.dirname(__file__))


_drop_stale_kernels()
