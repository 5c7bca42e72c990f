"""Reinforcement-learning environments for Go and Othello, in the field's standard interfaces.

=====================================  ==========================================================
:class:`~imago.envs.vector.VectorEnv`  N games stepped together by numba kernels (numpy, auto-
                                       reset, action masks, feature-plane observations); both
                                       colours act through it (self-play), as in pgx
``imago.envs.pettingzoo_env``          a PettingZoo AEC environment (``env()``, ``raw_env()``)
``imago.envs.gymnasium_env``           a Gymnasium environment against any imago agent,
                                       registered as ``imago/Go-v0`` and ``imago/Othello-v0``
:class:`~imago.envs.config.EnvConfig`  the game (size, rules, komi, move cap) and feature set
=====================================  ==========================================================

Observations are the planes of an :mod:`imago.nn.features` feature set (``legal4`` unless told),
from the point of view of the player to move, so a network trained here plays in ``imago play``,
``imago gtp`` and ``imago match`` through the ``policy`` and ``az`` agents unchanged. Actions
are ``row * size + col``, pass ``size * size``.

The vector environment needs only numpy and numba; the PettingZoo and Gymnasium ones need the
``envs`` extra (``pip install imago[envs]``). Importing this package registers the Gymnasium
environments when Gymnasium is installed, so ``gymnasium.make("imago/Othello-v0")`` works after
``import imago.envs`` (or, without the import, ``gymnasium.make("imago.envs:imago/Othello-v0")``).
"""

from __future__ import annotations

import importlib.util

from imago.envs.config import EnvConfig
from imago.envs.vector import VectorEnv, VectorStep

__all__ = ["EnvConfig", "VectorEnv", "VectorStep"]

if importlib.util.find_spec("gymnasium") is not None:
    from imago.envs.gymnasium_env import register_envs

    register_envs()
