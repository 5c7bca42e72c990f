"""Supervised learning from game records: sources, dataset shards, training loops.

:mod:`imago.train.sources`, :mod:`~imago.train.build` and :mod:`~imago.train.dataset` are
numpy-only; :mod:`imago.train.supervised` imports torch inside its functions (through
:mod:`imago.nn` and for the optimiser), so importing this package never needs torch.
"""
