"""What the agents know of Othello alone: the evaluation (seed 002's phase masks and the WTHOR
pattern evaluation, with their weights in ``data/``), the alpha-beta and exact endgame kernels on
bitboards, the :class:`~imago.agents.othello.endgame.EndgameSolver`, and the Othello half of the
Monte Carlo search. The agents themselves (``alphabeta``, ``mcts``) are generic and live one
level up."""
