"""Test data: a step model, an ensemble that runs it, and an ensemble of that ensemble."""

from __future__ import annotations

STEP = (
    'name: "step"\nbackend: "python"\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)
ENSEMBLE = (
    'name: "{name}"\nplatform: "ensemble"\n'
    'input [ {{ name: "in" data_type: TYPE_FP32 dims: [ 4 ] }} ]\n'
    'output [ {{ name: "out" data_type: TYPE_FP32 dims: [ 4 ] }} ]\n'
    'ensemble_scheduling {{ step [ {{ model_name: "{step}" model_version: -1 '
    'input_map {{ key: "{i}" value: "in" }} output_map {{ key: "{o}" value: "out" }} }} ] }}\n'
)
LAYOUT = {
    "models/step/config.pbtxt": STEP,
    "models/step/1/model.py": "# never executed\n",
    "models/ens/config.pbtxt": ENSEMBLE.format(name="ens", step="step", i="x", o="y"),
    "models/ens/1/.keep": "",
    "models/outer/config.pbtxt": ENSEMBLE.format(name="outer", step="ens", i="in", o="out"),
    "models/outer/1/.keep": "",
    "models/other/config.pbtxt": STEP.replace('"step"', '"other"'),
    "models/other/1/model.py": "# never executed\n",
}
