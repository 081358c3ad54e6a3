"""Imports a demo worker needs, done once in the forkserver so every worker forks warm.

Only imports happen here (no tensor work): forking after torch has started its
thread pools is unsafe, forking after a plain import is what forkserver is for.
"""

import importlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot
import torch
import torch._dynamo
import torch.optim  # noqa: F401

from experiments.catalog import CATALOG
from experiments.generators.registry import TEMPLATES

for _info in CATALOG.values():
    importlib.import_module(_info.module)
for _template in TEMPLATES.values():
    importlib.import_module(_template.module)
