"""DemoResult: the structured outcome of one experiment run (torch-free)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any


def jsonable(obj: Any) -> Any:
    """Plain-JSON copy: tuples→lists, numpy/torch scalars→float/int, non-finite→str.

    Non-finite floats become "inf"/"-inf"/"nan" strings so that the output is strict JSON.
    """
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    # Exact builtins only: str/int subclasses such as torch's TorchVersion would drag
    # torch into the bot process when the payload is unpickled there.
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, int):
        return int(obj)
    if hasattr(obj, "item") and callable(obj.item):  # numpy / 0-d torch scalar
        return jsonable(obj.item())
    if isinstance(obj, float):
        if math.isfinite(obj):
            return float(obj)
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return str(obj)


@dataclass
class DemoResult:
    """What a demo returns.

    ``numbers`` holds the demo-specific, JSON-serialisable data; ``highlights`` are a few
    (label, value) rows for a human table; ``png`` is the rendered plot.
    """

    demo: str
    params: dict[str, int]
    device: str
    numbers: dict[str, Any]
    snippet: str
    png: bytes
    elapsed_s: float
    highlights: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` contract: demo, device, params, the numbers' keys, elapsed_s."""
        out: dict[str, Any] = {"demo": self.demo, "device": self.device, "params": self.params}
        out.update(self.numbers)
        out["elapsed_s"] = round(self.elapsed_s, 4)
        return jsonable(out)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    # Transport between the worker and the bot (plain types only, pickle-safe).
    def to_payload(self) -> dict[str, Any]:
        # Only builtins: unpickling e.g. a torch.dtype or TorchVersion in the bot
        # process would import torch there.
        payload = asdict(self)
        payload["numbers"] = jsonable(payload["numbers"])
        payload["params"] = {str(k): int(v) for k, v in payload["params"].items()}
        payload["highlights"] = [(str(a), str(b)) for a, b in payload["highlights"]]
        payload["device"], payload["snippet"] = str(self.device), str(self.snippet)
        payload["elapsed_s"] = float(self.elapsed_s)
        payload["png"] = bytes(self.png)
        return payload

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> DemoResult:
        payload = dict(payload)
        payload["highlights"] = [tuple(r) for r in payload.get("highlights", [])]
        return cls(**payload)
