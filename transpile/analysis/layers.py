"""Gluon layers that take one tensor and return one tensor (``nn.Dense``, ``nn.Conv2D``, norms, ...).

``self.fc = nn.Dense(3)`` in ``__init__`` makes ``self.fc(x)`` a call of a single-tensor layer: its
argument is a tensor (a list or a tuple would fail in the layer) and so is its result. The analysis
uses this as evidence (better recall: ``x[0]`` or ``for row in x`` where ``x``'s only other use is
``self.fc(x)``) without importing the runtime: :data:`SINGLE_TENSOR_LAYERS` is generated from
``hybridize.runtime.gluon`` (``transpile/derive_facts.py``)::

    python -m hybridize.transpile.derive_facts
"""
from __future__ import annotations

from typing import Optional

from .runtime_facts import SINGLE_TENSOR_LAYERS  # generated: see transpile/derive_facts.py

#: Where the layers live, as paths inside ``mxnet`` (``mxnet.gluon.nn.Dense``).
LAYER_MODULES = (("gluon", "nn"), ("gluon", "contrib", "nn"))


def single_tensor_layer(parts: Optional[list[str]]) -> Optional[str]:
    """The layer's class name if ``parts`` (a path inside ``mxnet``, see ``knowledge.strip_mxnet``)
    names one of :data:`SINGLE_TENSOR_LAYERS` in a Gluon layer module, else ``None``."""
    if not parts or parts[-1] not in SINGLE_TENSOR_LAYERS:
        return None
    return parts[-1] if tuple(parts[:-1]) in LAYER_MODULES else None

