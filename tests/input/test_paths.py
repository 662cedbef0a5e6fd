"""genevals.files and genevals.input.paths: the one check of every path genevals reads (and of ``fuse -o``): a
regular file, or an error naming the path and the option, never a hang on a pipe or a device read forever (issue
34, point 6)."""
import json
import os
import subprocess
import sys

import pytest

from genevals.files import Refused, output_refusal, read_limited, refusal
from genevals.input.paths import check_readable, open_readable
from genevals.input.rows import InputError


@pytest.fixture
def specials(tmp_path):
    os.mkfifo(tmp_path / "fifo.trec")
    (tmp_path / "folder.trec").mkdir()
    os.symlink(tmp_path / "b.trec", tmp_path / "a.trec")
    os.symlink(tmp_path / "a.trec", tmp_path / "b.trec")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.trec")
    os.symlink("/proc/self/environ", tmp_path / "env.trec")
    (tmp_path / "good.trec").write_text("q1 Q0 d1 1 1.0 t\n")
    return tmp_path


@pytest.mark.parametrize("name,message", [
    ("fifo.trec", "is a named pipe (FIFO), not a regular file"),
    ("folder.trec", "is a directory, not a file"),
    ("a.trec", "is a loop of symbolic links"),
    ("dangling.trec", "is a symbolic link to a file that does not exist"),
    ("env.trec", "is under /proc"),
    ("missing.trec", "file not found"),
])
def test_what_is_not_a_regular_file_is_refused_naming_the_path_and_the_option(specials, name, message):
    path = specials / name
    with pytest.raises(InputError) as caught:
        open_readable(path, "--run")  # would block on the FIFO, were it opened
    assert str(caught.value) == f"{path}: --run: {message}" or str(caught.value).startswith(f"{path}: --run: {message}")
    assert refusal(path).startswith(message)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null", "/proc/self/environ"])
def test_devices_and_proc_files_are_refused(device):
    with pytest.raises(InputError, match="is a device|is under /proc"):
        check_readable(device, "--qrels")


def test_a_regular_file_opens_and_reads_within_its_bound(specials):
    with open_readable(specials / "good.trec", "--run") as handle:
        assert handle.read() == b"q1 Q0 d1 1 1.0 t\n"
    assert read_limited(specials / "good.trec", 100) == b"q1 Q0 d1 1 1.0 t\n"
    with pytest.raises(Refused, match="over 10 bytes, too large for a mapping file"):
        read_limited(specials / "good.trec", 10, "mapping file")
    with pytest.raises(Refused, match="is a named pipe"):
        read_limited(specials / "fifo.trec", 10)
    with pytest.raises(InputError, match="the path is empty"):
        check_readable("", "--qrels")


@pytest.mark.parametrize("target,message", [
    ("fifo.trec", "is a named pipe (FIFO), not a regular file; name a file"),
    ("folder.trec", "is a directory, not a file"),
    ("a.trec", "is a loop of symbolic links"),
    ("/dev/null", "is a device"),
    ("/dev/new.trec", "is under /dev"),
    ("/proc/self/new.trec", "is under /proc"),
])
def test_an_output_that_cannot_be_a_file_is_refused(specials, target, message):
    path = specials / target if not target.startswith("/") else target
    assert output_refusal(path).startswith(message)
    assert output_refusal(specials / "new.trec") is None and output_refusal(specials / "good.trec") is None
    assert output_refusal("/dev/shm/genevals-new.trec") is None  # a tmpfs: ordinary files


def _genevals(cwd, *args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=60,
                          cwd=cwd, stdin=subprocess.DEVNULL)


def test_every_option_that_reads_a_file_refuses_a_pipe_and_a_device_in_a_real_process(specials):
    # issue 34, point 6: each of these hung (a FIFO) or ran out of memory (/dev/zero) before
    (specials / "good.qrels").write_text("q1 0 d1 1\n")
    (specials / "in.jsonl").write_text(json.dumps({"answer": "a", "references": ["a"]}) + "\n")
    (specials / "labelled.jsonl").write_text(json.dumps({
        "id": "1", "question": "Q?", "context": "Paris is in France.", "response": "Paris is in France.",
        "hallucinated": False}) + "\n")
    os.mkfifo(specials / "fifo.yaml")
    os.mkfifo(specials / "fifo.json")
    run = ("run", "--out", "out", "--metrics", "exact_match")
    calls = {
        "--qrels": run + ("--qrels", "fifo.trec", "--run", "good.trec"),
        "--run": run + ("--qrels", "good.qrels", "--run", "/dev/zero"),
        "RUN": ("fuse", "good.trec", "fifo.trec", "-o", "fused.trec"),
        "-o": ("fuse", "good.trec", "good.trec", "-o", "fifo.trec"),
        "--from openinference": run + ("fifo.json", "--from", "openinference"),
        "--from langfuse": run + ("/dev/zero", "--from", "langfuse"),
        "--from langsmith": run + ("fifo.json", "--from", "langsmith"),
        "--map-file": run + ("in.jsonl", "--map-file", "fifo.yaml"),
        "--judge-prices": run + ("in.jsonl", "--judge-prices", "fifo.json"),
        "--grounding-thresholds": ("validate", "labelled.jsonl", "-o", "v", "--judge", "local",
                                   "--grounding-thresholds", "fifo.json"),
    }
    for option, args in calls.items():
        done = _genevals(specials, *args)
        assert done.returncode == 2, (option, done.stderr[-300:])
        assert option in done.stderr and ("pipe" in done.stderr or "device" in done.stderr), done.stderr
        assert "Traceback" not in done.stderr
