"""Reading Triton's log: lines as Triton 2.51 (nvidia-pytriton 0.7.0) wrote them on this machine."""

from __future__ import annotations

from pathlib import Path

from tritoncfg.triton.logs import LogEvent, LogTail, parse_log, strip_status

LOG = r"""I1202 14:09:04.922057 32674 model_lifecycle.cc:472] "loading: good:1"
I1202 14:09:06.395374 32674 model_lifecycle.cc:839] "successfully loaded 'good'"
[libprotobuf ERROR /tmp/tritonbuild/tritonserver/build/_deps/repo-third-party-build/grpc-repo/src/grpc/third_party/protobuf/src/google/protobuf/text_format.cc:337] Error parsing text-format inference.ModelConfig: 3:67: Message type "inference.ModelInput" has no field named "bogus_field".
E1202 14:09:06.405840 32674 model_repository_manager.cc:1460] "Poll failed for model directory 'bad_field': failed to read text proto from /repo/bad_field/config.pbtxt"
E1202 14:09:06.416514 32674 model_repository_manager.cc:1460] "Poll failed for model directory 'bad_batch': dynamic batching preferred size must be <= max batch size for bad_batch"
+-------+---------+--------+
| Model | Version | Status |
E1202 14:09:06.426453 32674 model_lifecycle.cc:642] "failed to load 'bad_gpu' version 1: Invalid argument: instance group bad_gpu_0 of model bad_gpu has kind KIND_GPU but no GPUs are available"
I1202 14:09:06.426502 32674 model_lifecycle.cc:777] "failed to load 'bad_gpu'"
E1202 14:09:06.448258 32674 model_repository_manager.cc:1415] "failed to poll model 'nonexist': model not found in any model repository."
E1202 14:12:06.587512 1885 model_repository_manager.cc:703] "Invalid argument: ensemble 'pipe' depends on 'classifier' which has no loaded version. Model 'classifier' loading failed with error: version 1 is at UNAVAILABLE state: Invalid argument: unable to find backend library for backend 'onnxruntime', try specifying runtime on the model configuration.;"
E1202 14:12:06.600000 1885 model_repository_manager.cc:1460] "Poll failed for model directory 'quoted': unexpected \"x\" in 'y'"
""".splitlines()


def events() -> dict[str, LogEvent]:
    return {e.model: e for e in parse_log(LOG)}


def test_loaded() -> None:
    assert events()["good"].kind == "loaded"


def test_parse_error_joins_the_poll_failure_that_follows_it() -> None:
    event = events()["bad_field"]
    assert (event.phase, event.line, event.column) == ("PARSE", 3, 67)
    assert event.message == (
        'Message type "inference.ModelInput" has no field named "bogus_field". '
        "(failed to read text proto from /repo/bad_field/config.pbtxt)"
    )


def test_poll_and_load_failures() -> None:
    found = events()
    assert found["bad_batch"].phase == "POLL"
    assert found["bad_batch"].message.startswith("dynamic batching preferred size")
    gpu = found["bad_gpu"]
    assert (gpu.phase, gpu.version, gpu.kind) == ("LOAD", 1, "error")
    # the status code goes, the message stays
    assert gpu.message.startswith("instance group bad_gpu_0 of model bad_gpu has kind KIND_GPU")
    assert found["nonexist"].message == "model not found in any model repository."


def test_ensemble_dependency_names_the_step() -> None:
    event = events()["pipe"]
    assert event.dependency == "classifier"
    assert event.message.startswith("ensemble 'pipe' depends on 'classifier'")
    assert not event.message.endswith(";")


def test_c_escapes_are_undone() -> None:
    assert events()["quoted"].message == "unexpected \"x\" in 'y'"


def test_strip_status() -> None:
    assert strip_status("Invalid argument: bad thing;\n") == "bad thing"
    assert strip_status("Internal: oops") == "oops"
    assert strip_status("plain") == "plain"


def test_tail_reads_only_complete_new_lines(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_bytes(b"one\ntw")
    tail = LogTail(path)
    assert tail.read() == ["one"]
    with path.open("ab") as handle:
        handle.write(b"o\nthree\n")
    assert tail.read() == ["two", "three"]
    assert tail.read() == []
    assert tail.tail(2) == ["two", "three"]


def test_tail_of_a_missing_file(tmp_path: Path) -> None:
    tail = LogTail(tmp_path / "absent")
    assert tail.read() == [] and tail.tail() == []
