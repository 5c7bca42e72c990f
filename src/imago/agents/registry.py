"""Agents by name, with typed options.

An agent module registers a factory with its options dataclass::

    @dataclass(frozen=True)
    class RandomOptions:
        pass_when_no_sensible_move: bool = True

    @register_agent("random", RandomOptions, games=("go", "othello"), summary="...")
    def _make_random(options: RandomOptions, rng: np.random.Generator) -> Agent: ...

and users make it from text, as the command line gives it:
``make_agent("mcts", "go", {"playouts": "800"}, seed=1)``, or
``agent_from_spec("mcts:playouts=800,rave=true", "go", size=9)``. Making an agent checks that
it can play the game and board (:meth:`Agent.prepare`) and says why not in one line.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from imago.agents.base import Agent, AgentError
from imago.core.errors import os_error_text

AGENT_MODULES: tuple[str, ...] = (
    "imago.agents.random_agent",
    "imago.agents.alphabeta",
    "imago.agents.mcts",
    "imago.arena.external",
    "imago.nn.agent",
    "imago.nn.guided",
    "imago.nn.az",
)
"""Modules imported (when present and importable) to discover the built-in agents."""

Factory = Callable[[Any, np.random.Generator], Agent]


@dataclass(frozen=True)
class AgentSpec:
    """A registered agent: its name, options type, the games it plays and how to make it."""

    name: str
    options_type: type[Any]
    factory: Factory
    games: tuple[str, ...]
    summary: str

    def option_fields(self) -> list[tuple[str, str, Any]]:
        """``(name, type name, default)`` for each option."""
        hints = typing.get_type_hints(self.options_type)
        rows = []
        for f in dataclasses.fields(self.options_type):
            default = f.default if f.default is not dataclasses.MISSING else None
            rows.append((f.name, _type_name(hints[f.name]), default))
        return rows


_REGISTRY: dict[str, AgentSpec] = {}
_discovered = False


def register_agent(
    name: str, options_type: type[Any], *, games: tuple[str, ...], summary: str
) -> Callable[[Factory], Factory]:
    """Class or function decorator: register ``factory(options, rng) -> Agent`` as ``name``."""
    if not dataclasses.is_dataclass(options_type):
        raise TypeError("agent options must be a dataclass")

    def decorate(factory: Factory) -> Factory:
        _REGISTRY[name] = AgentSpec(name, options_type, factory, games, summary)
        return factory

    return decorate


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for module in AGENT_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            # A module that does not exist yet, or an optional dependency (torch) not installed.
            if error.name is None or not (module.startswith(error.name) or error.name == "torch"):
                raise


def agent_specs() -> dict[str, AgentSpec]:
    """Every registered agent by name."""
    _discover()
    return dict(sorted(_REGISTRY.items()))


def parse_agent_spec(text: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and its raw option strings.

    A value may be quoted with double quotes to contain commas or colons:
    ``gtp:command="gnugo --mode gtp --level 10"``.
    """
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"no agent name in {text!r}")
    options: dict[str, str] = {}
    for item in _split_options(rest):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"agent option {item!r} is not key=value")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        options[key.strip().replace("-", "_")] = value
    return name, options


def _split_options(text: str) -> list[str]:
    items: list[str] = []
    current: list[str] = []
    quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == "," and not quoted:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    if quoted:
        raise ValueError(f"unbalanced quote in agent options {text!r}")
    items.append("".join(current))
    return [item for item in items if item.strip()]


def make_options(spec: AgentSpec, raw: Mapping[str, Any]) -> Any:
    """Build ``spec``'s options dataclass from strings (or already-typed values)."""
    hints = typing.get_type_hints(spec.options_type)
    names = {f.name for f in dataclasses.fields(spec.options_type)}
    unknown = sorted(set(raw) - names)
    if unknown:
        raise ValueError(
            f"agent {spec.name!r} has no option {', '.join(unknown)} "
            f"(options: {', '.join(sorted(names)) or 'none'})"
        )
    values = {key: _convert(key, value, hints[key]) for key, value in raw.items()}
    return spec.options_type(**values)


def make_agent(
    name: str,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    seed: int | None = None,
    size: int | None = None,
    check: bool = True,
) -> Agent:
    """Make the agent registered as ``name`` for ``game`` on a ``size`` board (default: the
    game's usual one) with ``options`` and a seeded RNG, and check that it can play there
    (:meth:`Agent.prepare`: its model exists and fits, its program runs).

    Raises :class:`AgentError` (a ``ValueError``) with a one-line reason when it cannot be
    made or cannot play that board; nothing is left running then. ``check=False`` leaves
    :meth:`Agent.prepare` to the agent's first move: for an agent made again and again from
    a spec checked once (each game of a match, where a failure is that game's, not the
    match's).
    """
    from imago.games import default_size

    specs = agent_specs()
    if name not in specs:
        raise AgentError(f"unknown agent {name!r} (known: {', '.join(specs) or 'none'})")
    spec = specs[name]
    if game not in spec.games:
        raise AgentError(f"agent {name!r} does not play {game} (plays: {', '.join(spec.games)})")
    board = default_size(game) if size is None else size
    try:
        agent = spec.factory(make_options(spec, options or {}), np.random.default_rng(seed))
    except AgentError:
        raise
    except (ValueError, OSError, RuntimeError) as error:
        raise AgentError(_reason(error)) from None
    try:
        if check:
            agent.prepare(game, board)
    except (ValueError, OSError, RuntimeError) as error:
        agent.close()
        if isinstance(error, AgentError):
            raise
        raise AgentError(_reason(error)) from None
    except BaseException:
        agent.close()
        raise
    return agent


def agent_from_spec(
    text: str, game: str, *, size: int | None = None, seed: int | None = None
) -> Agent:
    """Make the agent written as ``text`` (``NAME`` or ``NAME:option=value,...``) for ``game``
    on a ``size`` board: :func:`parse_agent_spec` then :func:`make_agent`, with every failure
    an :class:`AgentError` that names the agent: ``agent 'policy:model=x.pt': no model file
    at x.pt``. What ``imago play``, ``gtp``, ``match`` and ``tournament`` call."""
    try:
        name, options = parse_agent_spec(text)
        return make_agent(name, game, options, seed=seed, size=size)
    except ValueError as error:
        raise AgentError(f"agent {text!r}: {error}") from None


def _reason(error: BaseException) -> str:
    """One line for an error met while making an agent."""
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return where + os_error_text(error)
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _convert(key: str, value: Any, hint: Any) -> Any:
    if not isinstance(value, str):
        return value
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value.lower() in ("none", ""):
            return None
        hint = args[0]
    try:
        if hint is bool:
            lowered = value.lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if hint in (int, float, str):
            return hint(value)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return hint(value)
    except ValueError:
        raise ValueError(f"option {key}={value!r} is not {_value_kind(hint)}") from None
    raise TypeError(f"option {key} has a type the registry cannot read: {hint!r}")


def _value_kind(hint: Any) -> str:
    """What a value of type ``hint`` is, in words: ``a whole number``, ``true or false``."""
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "one of " + ", ".join(str(member.value) for member in hint)
    words = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}
    return words.get(hint, f"a valid {_type_name(hint)}")


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", str(hint).replace("typing.", ""))
