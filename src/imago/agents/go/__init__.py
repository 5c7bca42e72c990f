"""What the agents know of Go alone: playout policies and 3x3 shape patterns, the alpha-beta
kernel on the rules' state arrays, and the Go half of the Monte Carlo search (its playouts and
leaf expansion). The agents themselves (``alphabeta``, ``mcts``) are generic and live one level
up; nothing here is imported by the rules."""
