"""Neural networks (PyTorch): features, models, saving and loading, inference, the policy agent.

This is the only package that imports torch, and only in the modules that need it:
:mod:`imago.nn.features` is numpy-only (datasets are built with it; the board's symmetries
are :mod:`imago.games.symmetry`); :mod:`~imago.nn.models`, :mod:`~imago.nn.store`,
:mod:`~imago.nn.inference`, :mod:`~imago.nn.export` and :mod:`~imago.nn.agent` need the ``nn``
extra (``pip install imago[nn]``).
"""
