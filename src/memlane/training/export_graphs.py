"""Export the encoder graphs that ONNX Runtime runs (``providers/onnx_graph.py``), without their weights.

Needs torch and the ``onnx`` package (in the ``test`` extra), which the runtime does not. Each graph is
traced from the network, then every weight is taken out of it, marked as external data and named after the
safetensors tensor it equals (``key``, or ``key.T`` when the exporter folded a transpose into it). A card
beside the graph lists those names. The architecture, not the weights, is what is exported: a retrained
decision model runs on the same graph.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from memlane.providers.onnx_graph import DECISION_GRAPH, EMBEDDER_GRAPH, TRANSPOSED

OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _weight_key(array: np.ndarray, name: str, tensors: Mapping[str, np.ndarray]) -> str | None:
    """The tensor ``array`` is (by the exporter's name, else by value), or None for a graph constant."""
    if name.startswith("net.") and name[4:] in tensors:
        return name[4:]
    found = [
        key + suffix
        for key, value in tensors.items()
        for suffix, form in (("", value), (TRANSPOSED, value.T))
        if form.shape == array.shape and np.array_equal(form, array)
    ]
    if len(found) > 1:  # two weights with equal values (an untrained layer): the name cannot be told
        raise ValueError(
            f"graph weight {name} equals several tensors ({', '.join(found[:3])}); "
            "export from trained weights"
        )
    return found[0] if found else None


def export_graph(network: Any, output: str, out: Path) -> list[str]:
    """Write ``out`` (and its card): ``network``'s graph from the three BERT inputs to its ``output``
    field, every weight external. Returns the weight names."""
    import onnx
    import torch
    from onnx import TensorProto

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = network

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            result = self.net(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return getattr(result, output)

    network.eval()
    tensors = {k: v.detach().float().numpy() for k, v in network.state_dict().items()}
    ids = torch.tensor([[101, 7592, 2088, 102, 2157, 102], [101, 7592, 102, 2088, 102, 0]])
    sample = (ids, (ids > 0).long(), torch.tensor([[0, 0, 0, 0, 1, 1], [0, 0, 0, 1, 1, 0]]))
    out.parent.mkdir(parents=True, exist_ok=True)
    traced = out.with_suffix(".traced.onnx")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, output)}
    torch.onnx.export(
        Wrapped(),
        sample,
        str(traced),
        input_names=list(INPUTS),
        output_names=[output],
        dynamic_axes=axes,
        opset_version=OPSET,
        dynamo=False,
        do_constant_folding=True,
    )
    graph = onnx.load(str(traced))
    traced.unlink()
    renamed: dict[str, str] = {}
    for init in graph.graph.initializer:
        key = _weight_key(onnx.numpy_helper.to_array(init), init.name, tensors)
        if key is None:
            continue  # a small constant: it stays in the graph
        renamed[init.name] = init.name = key
        init.ClearField("raw_data")
        init.data_location = TensorProto.EXTERNAL
        del init.external_data[:]
        entry = init.external_data.add()
        entry.key, entry.value = "location", "weights.safetensors"  # never read: given in memory at load
    for node in graph.graph.node:
        for i, name in enumerate(node.input):
            node.input[i] = renamed.get(name, name)
    onnx.save(graph, str(out))
    names = list(renamed.values())
    card = {
        "weights": names,
        "output": output,
        "opset": OPSET,
        "exported_with": {"torch": torch.__version__.split("+")[0], "onnx": onnx.__version__},
    }
    out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return names


def export_embedder(directory: Path) -> Path:
    """The bundled all-MiniLM-L6-v2's graph: tokens -> last hidden state (mean pooling is done outside)."""
    from transformers import AutoModel

    from memlane.providers.embed.local import bundled_model_dir

    out = directory / EMBEDDER_GRAPH
    export_graph(AutoModel.from_pretrained(str(bundled_model_dir())), "last_hidden_state", out)
    return out


def export_decision(directory: Path) -> Path:
    """The decision model's graph: a token pair -> logits of its labels."""
    from memlane.providers.llm.learned.decision_model import LABELS, build_network

    out = directory / DECISION_GRAPH
    export_graph(build_network(len(LABELS), pretrained=True), "logits", out)  # trained values: told apart
    return out
