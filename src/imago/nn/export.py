"""Export a model to ONNX, with its spec in the model's metadata.

The graph takes ``planes`` (``(batch, P, N, N)`` float32; the batch size is dynamic) and gives
``policy`` (logits over ``N*N + 1`` actions, unmasked) and, for dual-head networks, ``value``.
The model's spec (game, size, feature set, architecture) is stored as the metadata entry
``imago_spec`` (JSON). Needs the ``onnx`` package (``pip install imago[nn]``).
"""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import torch
from torch import nn

from imago.core.files import atomic_path
from imago.nn.models import ModelError, Net
from imago.nn.store import load_model


class _Outputs(nn.Module):
    """The network with plain tensor outputs (ONNX has no ``None``)."""

    def __init__(self, net: Net) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        policy, value = self.net(x)
        return (policy,) if value is None else (policy, value)


def export_onnx(model_path: str | Path, onnx_path: str | Path, size: int | None = None) -> Path:
    """Write the model at ``model_path`` as ONNX to ``onnx_path`` (atomically); ``size``: the
    board a size-free model is exported for (default: the size it was trained on)."""
    try:
        import onnx
    except ImportError:
        raise ImportError("ONNX export needs the onnx package (pip install onnx)") from None
    loaded = load_model(model_path, size=size)
    spec = loaded.spec
    example = torch.zeros(1, spec.feature_set.planes, spec.size, spec.size)
    outputs = ["policy", "value"] if loaded.net.has_value else ["policy"]
    axes = {name: {0: "batch"} for name in ["planes", *outputs]}
    target = Path(onnx_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(target) as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the TorchScript exporter warns it is the old one
            torch.onnx.export(
                _Outputs(loaded.net).eval(),
                (example,),
                str(tmp),
                input_names=["planes"],
                output_names=outputs,
                dynamic_axes=axes,
                dynamo=False,
            )
            graph = onnx.load(str(tmp))
            entry = graph.metadata_props.add()
            entry.key = "imago_spec"
            entry.value = json.dumps(spec.to_dict())
            onnx.checker.check_model(graph)
            onnx.save(graph, str(tmp))
    except (RuntimeError, ValueError) as error:
        raise ModelError(f"ONNX export failed: {error}") from None
    return target


def onnx_session(model_path: str | Path, threads: int = 1, size: int | None = None) -> Any | None:
    """An ONNX Runtime session over the model at ``model_path``, or ``None`` when ``onnx`` /
    ``onnxruntime`` are not installed. Its input is ``planes`` and its first output ``policy``
    (see :func:`export_onnx`). An export beside the model (``model.onnx`` for ``model.pt``, no
    older than it, as ``imago rl`` writes them) is used as it is when it is for a ``size``
    board; otherwise the model is exported (for ``size``) through a temporary file."""
    try:
        import onnx  # noqa: F401
        import onnxruntime as ort  # type: ignore[import-untyped]
    except ImportError:
        return None
    options = ort.SessionOptions()
    if threads > 0:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    beside = Path(model_path).with_suffix(".onnx")
    if beside.is_file() and beside.stat().st_mtime >= Path(model_path).stat().st_mtime:
        session = ort.InferenceSession(str(beside), options, providers=["CPUExecutionProvider"])
        if size is None or session.get_inputs()[0].shape[-1] == size:
            return session
    with tempfile.TemporaryDirectory() as folder:
        path = export_onnx(model_path, Path(folder) / "model.onnx", size)
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
