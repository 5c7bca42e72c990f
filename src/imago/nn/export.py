"""Export a model to ONNX, with its spec in the model's metadata.

The graph takes ``planes`` (``(batch, P, N, N)`` float32; the batch size is dynamic) and gives
``policy`` (logits over ``N*N + 1`` actions, unmasked) and, for dual-head networks, ``value``.
The model's spec (game, size, feature set, architecture) is stored as the metadata entry
``imago_spec`` (JSON). Needs the ``onnx`` package (``pip install imago[nn]``).

:func:`quantize_onnx` writes an int8 copy of an export (weights per output channel,
activations with ranges measured on real positions) that ONNX Runtime runs about 3.5x faster
on a CPU with int8 dot products (``imago bench nn.int8``), at the cost of a small error in the
outputs: self-play's option ``nn_precision=int8`` (:mod:`imago.rl`).
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from imago.core.files import atomic_path
from imago.nn.models import ModelError, Net
from imago.nn.store import ModelSpec, load_model


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


def quantize_onnx(
    onnx_path: str | Path,
    out: str | Path,
    calibration: npt.NDArray[np.float32],
    batch: int = 64,
) -> Path:
    """Write an int8 copy of the ONNX export at ``onnx_path`` to ``out`` (atomically): static
    quantization in ONNX Runtime's QDQ format, weights per output channel (signed), activations
    (unsigned) scaled to the ranges they take on ``calibration``, feature planes of real
    positions ``(n, P, N, N)`` the network will meet (a sample of self-play's, say), read
    ``batch`` at a time. The spec's metadata is kept."""
    import onnx
    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import (  # type: ignore[import-untyped]
        quant_pre_process,
    )

    if calibration.ndim != 4 or not len(calibration):
        raise ValueError("calibration takes feature planes of positions: (n, P, N, N), n > 0")
    planes = np.ascontiguousarray(calibration, dtype=np.float32)

    class _Planes(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.batches: Iterator[dict[str, Any]] = iter(
                {"planes": planes[i : i + batch]} for i in range(0, len(planes), batch)
            )

        def get_next(self) -> dict[str, Any] | None:
            return next(self.batches, None)

    source = onnx.load(str(onnx_path))
    target = Path(out)
    with tempfile.TemporaryDirectory() as folder, atomic_path(target) as tmp:
        prepared = Path(folder) / "prepared.onnx"
        quant_pre_process(str(onnx_path), str(prepared))
        quantize_static(
            str(prepared),
            str(tmp),
            _Planes(),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
        )
        quantized = onnx.load(str(tmp))
        for entry in source.metadata_props:
            kept = quantized.metadata_props.add()
            kept.key, kept.value = entry.key, entry.value
        onnx.save(quantized, str(tmp))
    return target


def quantize_model(
    model_path: str | Path, out: str | Path, calibration: npt.NDArray[np.float32]
) -> Path:
    """Write an int8 copy of the model at ``model_path`` to ``out`` (atomically): its ONNX
    export quantized by :func:`quantize_onnx` on ``calibration``, feature planes of positions
    of the model's game, board and feature set (:meth:`imago.nn.dataset.Dataset.sample_planes`).
    The ``az`` agent runs it with ``precision=int8`` when it lies beside the model as
    ``MODEL.int8.onnx``."""
    spec = load_model(model_path).spec
    expected = (spec.feature_set.planes, spec.size, spec.size)
    if calibration.ndim != 4 or calibration.shape[1:] != expected:
        raise ModelError(
            f"the calibration positions have planes of shape {calibration.shape[1:]}, "
            f"not {expected} as {model_path} reads them ({spec.features} features, "
            f"{spec.size}x{spec.size})"
        )
    with tempfile.TemporaryDirectory() as folder:
        exported = export_onnx(model_path, Path(folder) / "model.onnx")
        return quantize_onnx(exported, out, calibration)


def onnx_session(
    model_path: str | Path,
    threads: int = 1,
    size: int | None = None,
    onnx_file: str | Path | None = None,
    spec: ModelSpec | None = None,
) -> Any | None:
    """An ONNX Runtime session over the model at ``model_path``, or ``None`` when ``onnx`` /
    ``onnxruntime`` are not installed. Its input is ``planes`` and its first output ``policy``
    (see :func:`export_onnx`). ``onnx_file``: this export of the model (its int8 copy, say),
    used as it is. Otherwise an export beside the model (``model.onnx`` for ``model.pt``, no
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
    if onnx_file is not None:
        return _given_export(ort, options, Path(onnx_file), model_path, spec)
    beside = Path(model_path).with_suffix(".onnx")
    if beside.is_file() and beside.stat().st_mtime >= Path(model_path).stat().st_mtime:
        session = ort.InferenceSession(str(beside), options, providers=["CPUExecutionProvider"])
        if size is None or session.get_inputs()[0].shape[-1] == size:
            return session
    with tempfile.TemporaryDirectory() as folder:
        path = export_onnx(model_path, Path(folder) / "model.onnx", size)
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _given_export(
    ort: Any, options: Any, path: Path, model_path: str | Path, spec: ModelSpec | None
) -> Any:
    """A session over ``path``, checked to be an export of the network at ``model_path`` (the
    same spec in its metadata; ``spec``: that network's, when the caller has loaded it)."""
    if not path.is_file():
        raise ModelError(f"{path}: no such ONNX file")
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # ONNX Runtime's own exception types
        raise ModelError(f"{path} is not a readable ONNX model: {error}") from None
    found = session.get_modelmeta().custom_metadata_map.get("imago_spec")
    spec = spec or load_model(model_path).spec
    if found is None or json.loads(found) != spec.to_dict():
        raise ModelError(f"{path} is not an export of {model_path} (another network's spec)")
    return session
