"""Network speed on this machine: training and inference positions per second per model size.

Rates are positions per CPU second of the one computing thread (see :func:`_rate`). Random
inputs of the Othello ``legal4`` shape (4 x 8 x 8) and Go ``minigo17`` (17 x 9 x 9);
training is one SGD step (forward, backward, update) at batch 256. Inference is ``torch`` in
evaluation mode under ``no_grad`` at batch 1 and 256; where ``onnxruntime`` is installed the
same network exported to ONNX is timed in the same run as the peer (ratio = torch / ORT).
One thread for torch and ORT alike (on a shared 2-core machine, two spinning OpenMP threads
lose to one by a large factor when the other core is busy).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

MODELS = ("dense", "convpool", "l12c128", "b6c64", "b5c48")
QUICK_MODELS = ("l12c128", "b6c64")


class Measurement(NamedTuple):
    """One throughput figure: dotted name, value, unit, note."""

    name: str
    value: float
    unit: str
    note: str


def _rate(call: Callable[[], object], positions: int, seconds: float) -> float:
    """Positions per CPU second of this thread for ``call`` (repeated for ``seconds`` of CPU).

    With one intra-op thread, torch and ONNX Runtime compute in the calling thread, so its CPU
    time is the work done, whatever else the machine is running.
    """
    call()
    call()
    count, start = 0, time.thread_time()
    while True:
        call()
        count += 1
        elapsed = time.thread_time() - start
        if elapsed >= seconds and count >= 3:
            return count * positions / elapsed


def measure_throughput(quick: bool) -> list[Measurement]:
    """Training and inference rates of every model size (the quick subset when ``quick``)."""
    from imago.nn.models import parse_arch
    from imago.nn.store import ModelSpec

    seconds = 0.5 if quick else 2.0
    cases = [("othello", 8, "legal4")]
    if not quick:
        cases.append(("go", 9, "minigo17"))
    import torch

    figures: list[Measurement] = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for game, size, features in cases:
            for name in QUICK_MODELS if quick else MODELS:
                spec = ModelSpec(game, size, features, parse_arch(name))
                figures.extend(_measure(spec, seconds))
    finally:
        torch.set_num_threads(threads)
    return figures


def _measure(spec: Any, seconds: float) -> list[Measurement]:
    import torch

    from imago.nn.models import parameter_count
    from imago.nn.store import save_model

    torch.manual_seed(0)
    net = spec.build()
    threads = torch.get_num_threads()
    note = f"{parameter_count(net):,} params, {threads} threads"
    prefix = f"nn.{spec.game}.{spec.name}"
    x = torch.rand(256, spec.feature_set.planes, spec.size, spec.size)
    target = torch.randint(0, spec.num_actions, (256,))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def train_step(bf16: bool = False, inputs: torch.Tensor = x) -> None:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits, value = net(inputs)
        loss = torch.nn.functional.cross_entropy(logits.float(), target)
        if value is not None:
            loss = loss + value.float().square().mean()
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()

    net.train()
    rate = _rate(lambda: train_step(False, x), 256, seconds)
    figures = [Measurement(f"{prefix}.train_pos_s", rate, "pos/cpu-s", note)]
    if torch.backends.mkldnn.is_available():  # type: ignore[no-untyped-call]
        # What `imago train supervised --amp on` does on CPU: bf16 autocast, channels-last.
        net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
        fast = x.contiguous(memory_format=torch.channels_last)
        rate = _rate(lambda: train_step(True, fast), 256, seconds)
        figures.append(Measurement(f"{prefix}.train_bf16_pos_s", rate, "pos/cpu-s", "amp on"))
        net.to(memory_format=torch.contiguous_format)  # type: ignore[call-overload]
    net.eval()
    for batch in (1, 256):
        xb = x[:batch].contiguous()

        def infer(xb: torch.Tensor = xb) -> None:
            with torch.no_grad():
                net(xb)

        rate = _rate(infer, batch, seconds)
        figures.append(Measurement(f"{prefix}.infer_b{batch}_pos_s", rate, "pos/cpu-s", note))
        peer = _onnx_rate(net, spec, save_model, xb.numpy(), seconds, threads)
        if peer is not None:
            figures.append(
                Measurement(f"{prefix}.ort_b{batch}_pos_s", peer, "pos/cpu-s", "peer: ORT")
            )
            figures.append(Measurement(f"{prefix}.torch_vs_ort_b{batch}", rate / peer, "x", ""))
    return figures


def _onnx_rate(
    net: Any, spec: Any, save: Callable[..., None], x: Any, seconds: float, threads: int
) -> float | None:
    try:
        import onnxruntime as ort  # type: ignore[import-untyped]
    except ImportError:
        return None
    from imago.nn.export import export_onnx

    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "model.pt"
        save(model, net, spec)
        path = export_onnx(model, Path(folder) / "model.onnx")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        return _rate(lambda: session.run(None, {"planes": x}), len(x), seconds)


def flops_per_position(net: Any, planes: int, size: int) -> int:
    """Floating-point operations of one forward pass for one position: two per multiply-add of
    every convolution and dense layer (what dominates a residual network's work; batch norms,
    activations and softmax are left out)."""
    import torch

    total = 0

    def count(module: Any, inputs: Any, output: Any) -> None:
        nonlocal total
        if isinstance(module, torch.nn.Conv2d):
            per_output = (
                module.in_channels // module.groups * module.kernel_size[0] * module.kernel_size[1]
            )
            total += 2 * per_output * output.numel()
        elif isinstance(module, torch.nn.Linear):
            total += 2 * module.in_features * module.out_features * output.shape[0]

    hooks = [m.register_forward_hook(count) for m in net.modules()]
    try:
        with torch.no_grad():
            net.eval()
            net(torch.zeros(1, planes, size, size))
    finally:
        for hook in hooks:
            hook.remove()
    return total


def sgemm_flops(seconds: float, n: int = 512) -> float | None:
    """The arithmetic rate a tuned float32 kernel reaches on this core: FLOP per CPU second of
    ``n x n`` matrix products in ONNX Runtime (one thread), the practical peak that self-play's
    network, run by the same library, is measured against (``None`` without onnxruntime).
    Not torch's: the MKL behind it takes slower paths on some CPUs (AMD's, here)."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    right = numpy_helper.from_array(rng.random((n, n), dtype=np.float32), "B")
    shape = [n, n]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["C"])],
        "sgemm",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, shape)],
        [right],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    left = rng.random((n, n), dtype=np.float32)
    rate = _rate(lambda: session.run(None, {"A": left}), 1, seconds)
    return rate * 2.0 * n**3


def measure_peak_share(quick: bool) -> list[Measurement]:
    """The shipped 9x9 Go and 8x8 Othello networks' inference at self-play's batch (128,
    ONNX Runtime, one thread) as FLOP/s, and as a share of :func:`sgemm_flops` on the same
    core: how much of this CPU's float32 arithmetic self-play's network gets (nothing without
    onnxruntime)."""
    import torch

    from imago.nn.shipped import shipped_model
    from imago.nn.store import load_model, save_model

    seconds = 0.5 if quick else 2.0
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        peak = sgemm_flops(seconds)
        if peak is None:
            return []
        figures = [Measurement("nn.peak.sgemm_gflops", peak / 1e9, "GFLOP/cpu-s", "ORT MatMul 512")]
        for game, size in (("go", 9), ("othello", 8)):
            loaded = load_model(shipped_model(game, size))
            net, spec = loaded.net, loaded.spec
            planes = spec.feature_set.planes
            flops = flops_per_position(net, planes, size)
            x = torch.rand(128, planes, size, size).numpy()
            rate = _onnx_rate(net, spec, save_model, x, seconds, 1)
            prefix = f"nn.peak.{game}{size}.{spec.name}"
            figures.append(Measurement(f"{prefix}.mflops_per_pos", flops / 1e6, "MFLOP", ""))
            if rate is None:
                continue
            achieved = rate * flops
            figures += [
                Measurement(f"{prefix}.ort_b128_pos_s", rate, "pos/cpu-s", "ONNX Runtime"),
                Measurement(f"{prefix}.ort_b128_gflops", achieved / 1e9, "GFLOP/cpu-s", ""),
                Measurement(f"{prefix}.share_of_sgemm", achieved / peak, "x", ""),
            ]
    finally:
        torch.set_num_threads(threads)
    return figures
