"""imago: a toolkit and engine for playing, studying and training AI for Go and Othello.

Layers, imports flowing one way::

    core -> games -> records -> agents -> gtp -> nn / train -> arena, ui, bench -> cli
"""

__version__ = "0.1.0"


def _drop_stale_kernels() -> None:
    from pathlib import Path

    from imago._kernel_cache import drop_stale

    drop_stale(Path(__file__).parent)


_drop_stale_kernels()
