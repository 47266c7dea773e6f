"""Helpers for the whole-model fixtures (importable as `model_support`): parameters of each model,
from the shipped ``model-0000.params`` or rebuilt from ``params_recipe.py`` + names.json + shapes.json."""
from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import numpy as np

from support import FIXTURES

MODELS = FIXTURES / "models"
def model_dir(name: str) -> Path:
    return MODELS / name


def shipped(name: str) -> bool:
    return (model_dir(name) / "model-0000.params").is_file()


@functools.lru_cache(maxsize=1)
def recipe():
    spec = importlib.util.spec_from_file_location("params_recipe", FIXTURES / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.recipe


@functools.lru_cache(maxsize=4)
def recipe_params(name: str) -> dict[str, np.ndarray]:
    """{exported name: array} rebuilt from the recipe (float32), for every model."""
    d = model_dir(name)
    names = json.loads((d / "names.json").read_text())     # structural -> exported
    shapes = json.loads((d / "shapes.json").read_text())   # exported -> shape
    make = recipe()
    return {exported: make(structural, tuple(shapes[exported])) for structural, exported in names.items()}


def io(name: str) -> dict[str, np.ndarray]:
    with np.load(model_dir(name) / "io.npz") as z:
        return {k: z[k] for k in z.files}


def meta(name: str) -> dict:
    return json.loads((model_dir(name) / "meta.json").read_text())


def tolerance(name: str, y: np.ndarray) -> dict:
    return {"rtol": 1e-3, "atol": 1e-4 * float(np.abs(y).max())}
