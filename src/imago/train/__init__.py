"""Datasets from game records: sources (WTHOR, transcripts, SGF folders and archives), filters,
engine labels, and the build that writes :mod:`imago.nn.dataset` shards. Numpy only: the
training loop itself is :mod:`imago.nn.supervised`, since :mod:`imago.nn` alone imports torch.
"""
