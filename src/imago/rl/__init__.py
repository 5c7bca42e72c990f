"""Learning by self-play: the AlphaZero / MiniGo reinforcement-learning loop.

======================  =========================================================================
module                  its one job
======================  =========================================================================
``selfplay``            many games in one process, one search, one network call a round
``folder``              the run folder: the one source of truth (layout, atomic writes)
``examples``            finished games into training examples and SGF
``config``              the run's settings (frozen, saved in ``run.json``), presets
``stages``              bootstrap, self-play, gather, train, evaluate, references, the loop
``validate``            each generation on the self-play holdout and on real records
``plots``               curves from the metrics log
======================  =========================================================================

The command line is ``imago rl`` (:mod:`imago.cli.rl`).
"""
