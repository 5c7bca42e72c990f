"""Saving and loading models with what they need to be used: config, feature set, game, size.

A model file is ``torch.save`` of a plain dict of tensors and strings::

    {"format": "imago-model", "version": 1, "spec": "<json>", "info": "<json>",
     "state_dict": {...tensors...}}

and is read back with ``torch.load(weights_only=True)``, which never unpickles code. Loading
checks the game and board size the caller expects and says clearly when they differ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from imago.core.errors import os_error_text
from imago.core.files import atomic_path
from imago.nn.features import FeatureSet, feature_set
from imago.nn.models import (
    ArchConfig,
    ModelError,
    Net,
    ResNetConfig,
    arch_name,
    build_net,
    config_from_dict,
    config_to_dict,
)

FORMAT = "imago-model"
VERSION = 1


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Everything needed to rebuild and use a network: game, board size, features, architecture."""

    game: str
    size: int
    features: str
    arch: ArchConfig

    @property
    def name(self) -> str:
        """The size name of the architecture (``b6c64``)."""
        return arch_name(self.arch)

    @property
    def feature_set(self) -> FeatureSet:
        return feature_set(self.features)

    @property
    def num_actions(self) -> int:
        return self.size * self.size + 1

    @property
    def size_free(self) -> bool:
        """Whether the network plays every board size (fully convolutional, pooled heads);
        ``size`` is then the size it was trained on, or the one it was loaded for."""
        return isinstance(self.arch, ResNetConfig) and self.arch.pool

    def plays(self, game: str, size: int) -> bool:
        """Whether this model can play ``game`` on a ``size`` board."""
        return game == self.game and (size == self.size or self.size_free)

    def at_size(self, size: int) -> ModelSpec:
        """This spec for a ``size`` board (a size-free model's input size; checked)."""
        self.check(size=size)
        return self if size == self.size else replace(self, size=size)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "size": self.size,
            "features": self.features,
            "arch": config_to_dict(self.arch),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelSpec:
        try:
            spec = cls(
                str(data["game"]),
                int(data["size"]),
                str(data["features"]),
                config_from_dict(dict(data["arch"])),
            )
        except (KeyError, TypeError) as error:
            raise ModelError(f"model spec is incomplete: {error}") from None
        try:
            feature_set(spec.features, spec.game)  # an unknown set, or one for another game
        except ValueError as error:
            raise ModelError(str(error)) from None
        return spec

    def build(self) -> Net:
        """A freshly initialised network for this spec."""
        return build_net(self.arch, self.feature_set.planes, self.size)

    def check(self, game: str | None = None, size: int | None = None) -> None:
        """Raise :class:`ModelError` when this model is not for ``game`` / ``size``."""
        if game is not None and game != self.game:
            raise ModelError(f"the model is for {self.size}x{self.size} {self.game}, not {game}")
        if size is not None and size != self.size and not self.size_free:
            raise ModelError(
                f"this model is for {self.size}x{self.size} {self.game}, not {size}x{size}"
            )


@dataclass(slots=True)
class LoadedModel:
    """A network in evaluation mode with its spec and free-form training info."""

    net: Net
    spec: ModelSpec
    info: dict[str, Any] = field(default_factory=dict)


def atomic_torch_save(obj: Any, path: Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        torch.save(obj, tmp)


def model_payload(net: Net, spec: ModelSpec, info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The dict :func:`save_model` writes (also embedded in training checkpoints)."""
    state = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    return {
        "format": FORMAT,
        "version": VERSION,
        "spec": json.dumps(spec.to_dict()),
        "info": json.dumps(info or {}),
        "state_dict": state,
    }


def save_model(
    path: str | Path, net: Net, spec: ModelSpec, info: dict[str, Any] | None = None
) -> None:
    """Write ``net`` with its spec (atomically)."""
    atomic_torch_save(model_payload(net, spec, info), Path(path))


def save_half(path: str | Path, out: str | Path) -> Path:
    """Write a copy of the model at ``path`` (a model file or a training checkpoint) to ``out``
    with its floating-point weights stored as float16: half the file, as imago ships its big
    networks. It loads like any model, into float32 weights; its predictions differ from the
    original's by float16 rounding (compare both with ``imago train evaluate``). Raises
    :class:`ModelError` when a weight lies outside float16's range."""
    loaded = load_model(path)
    payload = model_payload(loaded.net, loaded.spec, {**loaded.info, "stored_as": "float16"})
    state = {}
    for name, tensor in payload["state_dict"].items():
        if tensor.is_floating_point():
            half = tensor.half()
            if not bool(torch.isfinite(half).all()):
                raise ModelError(f"{name} holds values outside float16's range")
            tensor = half
        state[name] = tensor
    payload["state_dict"] = state
    target = Path(out)
    atomic_torch_save(payload, target)
    return target


def save_tensors_half(source: str | Path | dict[str, Any], out: Path) -> None:
    """A model file or training checkpoint (a path, or its loaded contents) written to ``out``
    with every floating-point tensor of more than one value in float16 (atomically)."""

    def halved(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.half() if value.is_floating_point() and value.dim() else value
        if isinstance(value, dict):
            return {key: halved(item) for key, item in value.items()}
        if isinstance(value, list):
            return [halved(item) for item in value]
        return value

    atomic_torch_save(halved(source if isinstance(source, dict) else safe_load(source)), out)


def safe_load(path: str | Path, device: str | torch.device = "cpu") -> Any:
    """``torch.load`` that never unpickles code; clear errors for missing or foreign files."""
    from imago.nn.shipped import model_file_problem

    file = Path(path)
    problem = model_file_problem(file)
    if problem is not None:
        raise ModelError(problem)
    try:
        return torch.load(file, map_location=device, weights_only=True)
    except Exception as error:  # torch raises several types for a foreign file
        raise ModelError(f"{file} is not a model file: {_load_failure(error, file)}") from None


def _load_failure(error: Exception, file: Path) -> str:
    """Why torch could not read ``file``, in one line (never torch's page of advice)."""
    text = str(error)
    if file.suffix.lower() == ".onnx":
        return "an ONNX export, written for inference only (give the model .pt beside it)"
    if "Weights only load failed" in text or "weights_only" in text:
        return "it holds Python objects, which imago never unpickles (only imago model files)"
    if isinstance(error, OSError):
        return os_error_text(error)
    with file.open("rb") as stream:
        torch_file = stream.read(4) == b"PK\x03\x04"  # torch.save writes a zip archive
    if not torch_file or "zip archive" in text or "pickle" in text.lower():
        return "not a file written by torch.save (a model is a model.pt written by imago train)"
    first = text.strip().splitlines()[0] if text.strip() else type(error).__name__
    return first[:200]


def model_from_payload(
    payload: Any,
    *,
    game: str | None = None,
    size: int | None = None,
    device: str | torch.device = "cpu",
) -> LoadedModel:
    """Rebuild a model from a loaded payload, checking game and size (a size-free model is
    rebuilt for ``size``: its spec then says ``size``)."""
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ModelError("not an imago model file")
    if payload.get("version") != VERSION:
        raise ModelError(f"unsupported model file version {payload.get('version')!r}")
    spec = ModelSpec.from_dict(json.loads(payload["spec"]))
    spec.check(game, size)
    if size is not None:
        spec = spec.at_size(size)
    net = spec.build()
    try:
        net.load_state_dict(payload["state_dict"])
    except RuntimeError as error:
        raise ModelError(f"the weights do not fit the {spec.name} network: {error}") from None
    net.to(device).eval()
    return LoadedModel(net, spec, json.loads(payload.get("info", "{}")))


def load_model(
    path: str | Path,
    *,
    game: str | None = None,
    size: int | None = None,
    device: str | torch.device = "cpu",
) -> LoadedModel:
    """Load a model saved by :func:`save_model` (or a training checkpoint's model).

    Raises :class:`ModelError` if the file is missing or foreign, or when ``game`` / ``size`` are
    given and differ from the model's.
    """
    payload = safe_load(path, device)
    if isinstance(payload, dict) and "model" in payload and payload.get("format") != FORMAT:
        payload = payload["model"]  # a training checkpoint
    return model_from_payload(payload, game=game, size=size, device=device)
