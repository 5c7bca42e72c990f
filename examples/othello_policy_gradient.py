"""Policy gradient on 6x6 Othello in plain PyTorch, with imago's vector environment.

A small residual network (``b2c32``: policy and value heads) learns to beat a random player:
256 games run side by side in :class:`imago.envs.VectorEnv`; in each, the learner plays one
colour (Black in half of them, White in the other half) and the opponent plays uniformly random
legal moves. Each finished game's result (+1, -1 or 0) is the return of every learner move in
it; the loss is REINFORCE with the value head as a baseline, an entropy bonus and the value
error. It runs in a few minutes on one CPU core and prints the win rate against the random
player before and after training::

    python examples/othello_policy_gradient.py --updates 60 --out othello6_pg.pt

The network is saved as an imago model (observations are the ``legal4`` feature planes of
:mod:`imago.nn.features`), so it plays wherever imago's agents play, unchanged::

    imago match --game othello --size 6 --black policy:model=othello6_pg.pt --white random \\
        --games 100 --alternate
    imago play --game othello --size 6 --white policy:model=othello6_pg.pt
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from imago.envs import VectorEnv, VectorStep
from imago.nn.models import Net, parse_arch
from imago.nn.store import ModelSpec, save_model


def masked_logits(
    net: Net, step: VectorStep, rows: np.ndarray
) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy logits (illegal actions at -inf) and values of the games ``rows``."""
    planes = torch.from_numpy(step.observation[rows]).float()  # from_numpy: no copy
    legal = torch.from_numpy(step.action_mask[rows])
    logits, value = net(planes)
    assert value is not None, "this example needs a network with a value head (b*c*)"
    return logits.masked_fill(~legal, float("-inf")), value


def play_against_random(net: Net, games: int, seed: int, *, sample: bool) -> tuple[float, dict]:
    """Play ``games`` games (the learner Black in half), return the learner's win rate and, when
    ``sample``, the learner's moves grouped by finished game for training."""
    env = VectorEnv("othello", games, size=6, features="legal4", seed=seed)
    learner = np.where(np.arange(games) % 2 == 0, 1, 2)
    generator = torch.Generator().manual_seed(seed)
    step = env.reset()
    moves: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(games)]
    finished: dict[str, list] = {"planes": [], "masks": [], "actions": [], "returns": []}
    wins = draws = played = 0
    playing = np.ones(games, dtype=bool)  # each game slot plays one game, then stops counting
    net.eval()
    while playing.any():
        actions = env.random_actions()
        rows = np.flatnonzero((step.to_play == learner) & playing)
        if rows.size:
            with torch.no_grad():
                logits, _ = masked_logits(net, step, rows)
            if sample:
                chosen = torch.multinomial(torch.softmax(logits, 1), 1, generator=generator)[:, 0]
            else:
                chosen = logits.argmax(1)
            actions[rows] = chosen.numpy()
            for row, action in zip(rows, chosen.tolist(), strict=True):
                moves[row].append((step.observation[row], step.action_mask[row], action))
        step = env.step(actions)
        for row in np.flatnonzero(step.done & playing):
            result = float(step.reward_of(learner)[row])
            wins += result > 0
            draws += result == 0
            played += 1
            playing[row] = False
            for planes, mask, action in moves[row]:
                finished["planes"].append(planes)
                finished["masks"].append(mask)
                finished["actions"].append(action)
                finished["returns"].append(result)
            moves[row] = []
    return (wins + 0.5 * draws) / played, finished


def update(net: Net, optimizer: torch.optim.Optimizer, data: dict, entropy: float) -> float:
    """One REINFORCE step with the value head as a baseline; returns the loss."""
    net.train()
    planes = torch.from_numpy(np.stack(data["planes"])).float()
    legal = torch.from_numpy(np.stack(data["masks"]))
    actions = torch.tensor(data["actions"])
    returns = torch.tensor(data["returns"], dtype=torch.float32)
    logits, value = net(planes)
    assert value is not None
    log_probs = torch.log_softmax(logits.masked_fill(~legal, float("-inf")), 1)
    chosen = log_probs.gather(1, actions[:, None])[:, 0]
    advantage = returns - value.detach()
    probs = log_probs.exp()
    spread = -(probs * log_probs.masked_fill(~legal, 0.0)).sum(1).mean()
    loss = -(chosen * advantage).mean() + 0.5 * ((value - returns) ** 2).mean() - entropy * spread
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return float(loss)


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=60, help="training steps")
    parser.add_argument("--games", type=int, default=256, help="games per training step")
    parser.add_argument("--arch", default="b2c32", help="network (a b*c* residual size name)")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--entropy", type=float, default=0.01, help="entropy bonus")
    parser.add_argument("--eval-games", type=int, default=400, help="games to measure with")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("othello6_pg.pt"))
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    spec = ModelSpec("othello", 6, "legal4", parse_arch(args.arch))
    net = spec.build()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    before, _ = play_against_random(net, args.eval_games, seed=10_000, sample=False)
    print(f"before training: {before:.1%} against random over {args.eval_games} games")
    started = time.perf_counter()
    for i in range(1, args.updates + 1):
        rate, data = play_against_random(net, args.games, seed=args.seed + i, sample=True)
        loss = update(net, optimizer, data, args.entropy)
        if i % 10 == 0 or i == args.updates:
            print(
                f"update {i}: {rate:.1%} won while sampling, loss {loss:.3f}, "
                f"{time.perf_counter() - started:.0f} s"
            )
    after, _ = play_against_random(net, args.eval_games, seed=10_000, sample=False)
    print(f"after training: {after:.1%} against random over {args.eval_games} games")
    save_model(
        args.out,
        net,
        spec,
        {
            "trainer": "examples/othello_policy_gradient.py",
            "updates": args.updates,
            "win_rate_vs_random": after,
        },
    )
    print(
        f"saved {args.out}; try: imago match --game othello --size 6 "
        f"--black policy:model={args.out} --white random --games 100 --alternate"
    )
    return args.out


if __name__ == "__main__":
    main()
