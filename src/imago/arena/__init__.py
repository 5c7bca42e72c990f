"""The arena: external GTP programs as agents, matches, tournaments and ratings.

- :mod:`imago.arena.external`: any GTP program as an :class:`~imago.agents.base.Agent`
  (registered as ``gtp``);
- :mod:`imago.arena.game`: one game between two agents, with forfeits and adjudication;
- :mod:`imago.arena.match`: a resumable series of games (in parallel processes), written as SGF;
- :mod:`imago.arena.tournament`: round robins and gauntlets, cross tables;
- :mod:`imago.arena.ratings` and :mod:`imago.arena.stats`: Elo by maximum likelihood, score
  intervals and the SPRT.
"""
