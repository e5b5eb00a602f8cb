"""Estimator model_dirs move between TF 1.15 and tinyflow (tests/fixtures/estimator/model_dirs): tinyflow resumes
a model_dir TF trained and ends with every variable TF ended with (optimizer slots and Adam's beta powers
included: TF's names, e.g. dnn/hiddenlayer_0/bias/t_0/Adagrad); TF 1.15 resumed tinyflow's model_dirs and
tinyflow continuing the same checkpoints ends where TF ended."""
import json
import importlib.util
import os
import shutil
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "estimator", "model_dirs")
sys.path.insert(0, HERE)
# loaded under a name of its own: another test's fixtures may hold a `cases` module too
_spec = importlib.util.spec_from_file_location('estimator_model_dirs_cases', os.path.join(HERE, "cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

TF_RESUMED = json.load(open(os.path.join(HERE, "tf_resumed.json")))
TF_RESUMED_TINYFLOW = json.load(open(os.path.join(HERE, "tf_resumed_from_tinyflow.json")))


def _resume(tmp_path, source, name):
    work = str(tmp_path / "m")
    shutil.copytree(os.path.join(HERE, source), work)
    cases.make(tf, name, work).train(cases.input_fn(tf, name), steps=cases.MORE_STEPS)
    return cases.variables(tf, work)


def _same(got, want):
    assert sorted(got) == sorted(want)  # every variable: weights, slots, beta powers, global_step
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-4, atol=2e-5, err_msg=key)


@pytest.mark.slow
@pytest.mark.parametrize("name", cases.CASES)
def test_tinyflow_resumes_tf_model_dir(tmp_path, name):
    _same(_resume(tmp_path, "tf_" + name, name), TF_RESUMED[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", cases.CASES)
def test_tf_resumed_tinyflow_model_dir(tmp_path, name):
    _same(_resume(tmp_path, "tinyflow_" + name, name), TF_RESUMED_TINYFLOW[name])


def test_slot_names_are_tf_checkpoint_keys():
    names = set(TF_RESUMED["dnn_adagrad"]) | set(TF_RESUMED["dnn_adam"]) | set(TF_RESUMED["linear_ftrl"])
    assert {"dnn/hiddenlayer_0/bias/t_0/Adagrad", "dnn/head/beta1_power", "dnn/logits/kernel/t_0/Adam_1",
            "linear/linear_model/c/weights/part_0/Ftrl_1"} <= names
    assert "dnn/hiddenlayer_0/bias/Adagrad" in TF_RESUMED["dnn_linear"]  # not partitioned there: plain names
