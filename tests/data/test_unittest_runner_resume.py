"""A test that ends its pytest process (a crash, an out-of-memory kill) fails alone: the MXNet
unit-test runner names it and resumes the file with the tests that had not started."""
from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "mxnet_unittests" / "run.py"


def fake_pytest(outcomes: dict[str, str]):
    """Stands in for the pytest process: writes the shim's records for the selected tests in order,
    as the shim does, and ends (exit -9) at a test whose outcome is "killed"."""
    def run(cmd, env, **kwargs):
        todo = json.load(open(env["MXUT_SELECT"]))
        with open(env["MXUT_REPORT"], "a") as report:
            for name in todo:
                for case in (["[1]", "[2]"] if name.endswith("_params") else [""]):
                    node = f"test_sample.py::{name}{case}"
                    report.write(json.dumps({"nodeid": node, "when": "start", "outcome": "started",
                                             "message": ""}) + "\n")
                    if outcomes[name] == "killed" and case != "[1]":
                        return subprocess.CompletedProcess(cmd, -9, "", "")
                    report.write(json.dumps({"nodeid": node, "when": "call", "outcome": outcomes[name],
                                             "message": ""}) + "\n")
        return subprocess.CompletedProcess(cmd, 0, "", "")
    return run


def test_a_test_ending_its_process_fails_and_the_file_resumes_after_it(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mxut_run_resume", TOOL)
    run_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_py)
    (tmp_path / "test_sample.py").write_text("")
    outcomes = {"test_before": "passed", "test_killed": "killed", "test_after": "passed",
                "test_killed_params": "killed", "test_last": "failed"}
    monkeypatch.setattr(run_py.subprocess, "run", fake_pytest(outcomes))
    results = run_py.run_file(str(tmp_path), "test_sample", list(outcomes), timeout=60)
    assert {n: r["outcome"] for n, r in results.items()} == {
        "test_before": "passed", "test_killed": "failed", "test_after": "passed",
        "test_killed_params": "failed", "test_last": "failed"}
    assert results["test_killed"]["message"] == "the test ended its pytest process (exit -9)"
    # a parametrized test whose second case ended the process fails, though its first case passed
    assert results["test_killed_params"]["message"] == "the test ended its pytest process (exit -9)"
