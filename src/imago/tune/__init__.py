"""Tuning agents by playing games: the genetic algorithm of seed 002 for the Othello
evaluation (:mod:`imago.tune.genetic`) and its plots (:mod:`imago.tune.plots`)."""
