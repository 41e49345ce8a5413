"""raptor compile replaces only its own program directories, and an
interruption at any instant leaves the old program or the new one,
complete, and no staging copy (issue 27's output directories)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from raptor import pim
from raptor._io import UserError
from raptor.pim._outputs import check_replaceable


class Tiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.c(x))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("model") / "tiny.pt2"
    torch.export.save(torch.export.export(Tiny().eval(), (torch.randn(1, 3, 8, 8),)), path)
    return path


def _compile(model: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "raptor", "compile", str(model), "-o", str(out), "-q", *extra],
                          capture_output=True, text=True, timeout=300)


def test_a_directory_with_a_foreign_manifest_or_files_is_refused(tmp_path: Path, model: Path) -> None:
    """A manifest.json that is not Raptor's, a file Raptor did not write
    beside a real program (the model itself), a symbolic link: one line,
    exit 1, and every file is still there."""
    web = tmp_path / "web"
    web.mkdir()
    (web / "manifest.json").write_text('{"name": "my app", "version": 3}')
    (web / "index.html").write_text("<html></html>")
    r = _compile(model, web)
    assert r.returncode == 1 and "is not a program directory (its manifest.json is not a Raptor manifest)" in r.stderr
    assert sorted(p.name for p in web.iterdir()) == ["index.html", "manifest.json"]
    program = tmp_path / "program"
    assert _compile(model, program).returncode == 0
    inside = program / "tiny.pt2"
    inside.write_bytes(model.read_bytes())
    r = _compile(inside, program)
    assert r.returncode == 1 and "holds 'tiny.pt2', which Raptor did not write" in r.stderr
    assert inside.is_file() and (program / "manifest.json").is_file()
    link = tmp_path / "link"
    link.symlink_to(program)
    r = _compile(model, link)
    assert r.returncode == 1 and "is a symbolic link" in r.stderr and r.stderr.count("\n") == 1
    with pytest.raises(UserError, match="not a program directory"):
        check_replaceable(model)


def _complete(directory: Path) -> bool:
    """Whether `directory` holds a whole program (it loads and runs)."""
    try:
        pim.Program.load(directory).simulate({"x": torch.zeros(1, 3, 8, 8).numpy()})
        return True
    except UserError:
        return False


def test_a_dangling_link_or_an_input_inside_the_output_is_refused_before_the_compile(tmp_path: Path,
                                                                                   model: Path) -> None:
    """The output is checked before the model is even read (a symbolic link
    was a traceback after the whole compile): a foreign directory is named
    although the model does not exist. A model, weights or target file
    inside a program directory of Raptor's (its reports/) would be deleted
    by the replacement: refused, the file kept."""
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    r = _compile(model, dangling)
    assert r.returncode == 1 and r.stderr == f"raptor: error: '{dangling}' is a symbolic link: give the program " \
                                             "directory itself\n"
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    r = _compile(tmp_path / "missing.pt2", foreign)
    assert r.returncode == 1 and "(no Raptor manifest; it holds 'notes.txt')" in r.stderr
    program = tmp_path / "program"
    assert _compile(model, program).returncode == 0
    inside = program / "reports" / "model.pt2"
    inside.parent.mkdir(exist_ok=True)
    inside.write_bytes(model.read_bytes())
    for args in ((inside,), (model, "--target", str(inside))):
        r = subprocess.run([sys.executable, "-m", "raptor", "compile", str(args[0]), "-o", str(program), "-q",
                            *args[1:]], capture_output=True, text=True, timeout=300)
        assert r.returncode == 1 and r.stderr == (f"raptor: error: '{inside}' is inside '{program}', which the "
                                                  "compile replaces: move it or choose another output\n")
        assert inside.read_bytes() == model.read_bytes()


def test_missing_parents_of_the_output_are_created_and_taken_back_on_failure(tmp_path: Path, model: Path) -> None:
    """`raptor compile MODEL -o out/m` works in a fresh directory (the
    README's example failed: no such directory); a compile that fails
    leaves none of the directories it created, and no staging copy."""
    r = subprocess.run([sys.executable, "-m", "raptor", "compile", str(model), "-o", "out/deep/m", "-q"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _complete(tmp_path / "out" / "deep" / "m")
    assert sorted(p.name for p in (tmp_path / "out" / "deep").iterdir()) == ["m"]
    small = Path(pim.__file__).parent.parent / "spatial" / "targets" / "small.json"
    r = subprocess.run([sys.executable, "-m", "raptor", "compile", "shufflenet_v2", "-o", "new/deep/m", "-q",
                        "--target", str(small)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 1 and "crossbars but the chip has" in r.stderr and r.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    (tmp_path / "file").write_text("x")
    r = subprocess.run([sys.executable, "-m", "raptor", "compile", str(model), "-o", "file/m", "-q"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 1 and r.stderr == "raptor: error: cannot write 'file/m': 'file' is not a directory\n"


def test_report_files_are_written_where_the_user_says(tmp_path: Path, model: Path) -> None:
    """raptor schedule wrote reports/ into the current directory unless told
    otherwise; now only with --report-dir, whose missing parents it creates."""
    r = subprocess.run([sys.executable, "-m", "raptor", "schedule", str(model)], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    r = subprocess.run([sys.executable, "-m", "raptor", "schedule", str(model), "--report-dir", "a/b"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["gantt.svg", "schedule.json"]
    assert json.loads((tmp_path / "a" / "b" / "schedule.json").read_text())["summary"]["tasks"] > 0


def _default_sigint() -> None:
    """SIGINT back to its default in a child, as a terminal's Ctrl-C finds
    it: a test run started in the background by a non-interactive shell (the
    clean-clone CI) hands it down ignored, and the SIGINT cases then ran
    every compile to its end and tested nothing (114 s instead of 20)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_compiles_leave_the_old_or_the_new_program(tmp_path: Path, model: Path, signum: int) -> None:
    """Over an existing program, a compile interrupted at random instants
    (over its whole length, measured first, half of them in its last
    fifth, where the old program is replaced) leaves a complete program,
    the old one or the new one, and no staging copy beside it (SIGTERM left
    the staging directory before; SIGINT in the last second left neither
    program)."""
    out = tmp_path / "p"
    assert _compile(model, out).returncode == 0
    start = time.perf_counter()
    assert _compile(model, out).returncode == 0  # (the length of a replacing compile)
    length = time.perf_counter() - start
    rng = random.Random(signum)
    instants = [rng.uniform(0.05, 1.0) for _ in range(3)] + [rng.uniform(0.8, 1.05) for _ in range(3)]
    outcomes = set()
    for instant in instants:
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["mark"] = "old"
        (out / "manifest.json").write_text(json.dumps(manifest))
        p = subprocess.Popen([sys.executable, "-m", "raptor", "compile", str(model), "-o", str(out), "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_default_sigint)
        time.sleep(instant * length)
        p.send_signal(signum)
        code = p.wait(timeout=300)
        # (a signal before the command has started its work ends it as the signal does)
        assert code in (0, 128 + signum, -signum), code
        assert _complete(out)  # the old program (its manifest marked) or the new one
        outcomes.add("old" if json.loads((out / "manifest.json").read_text()).get("mark") else "new")
        assert sorted(q.name for q in tmp_path.iterdir()) == ["p"], os.listdir(tmp_path)
    assert outcomes  # (which of the two depends on the machine's speed)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_command_loads_ends_it_without_a_traceback(tmp_path: Path, model: Path,
                                                                      signum: int) -> None:
    """The installed `raptor` command holds SIGINT and SIGTERM while MLIR,
    numpy and the compiler load: a signal in that second ends it with the
    signal's exit code, not with a traceback from inside an importer (the
    fuzz harness found "ImportError: cannot load module more than once per
    process" after a Ctrl-C in numpy's import, and "Fatal Python error:
    init_import_site" with a KeyboardInterrupt traceback when the signal came
    within Python's own start, which the launcher now covers). The instants
    cover the interpreter's start (the first 30 ms), the loading and the
    start of the work."""
    command = Path(sys.executable).parent / "raptor"
    assert command.read_bytes()[:4] == b"\x7fELF"  # the launcher (tools/raptor-launcher), not a Python script
    rng = random.Random(signum)
    for instant in [0.0, 0.002, 0.005, 0.01, 0.02, 0.03] + [rng.uniform(0.0, 0.8) for _ in range(8)]:
        p = subprocess.Popen([str(command), "compile", str(model), "-o", str(tmp_path / "p"), "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
        time.sleep(instant)
        p.send_signal(signum)
        _, err = p.communicate(timeout=300)
        assert "Traceback" not in err, (instant, err)
        assert p.returncode in (0, 128 + signum, -signum), (instant, p.returncode, err)
        assert not [q.name for q in tmp_path.iterdir() if q.name.startswith(".")]


def test_a_signal_after_the_command_has_run_is_ignored() -> None:
    """A SIGTERM that arrives once the command has returned (as the
    interpreter shuts down) is ignored: before, its handler raised SystemExit
    inside threading's shutdown and printed a traceback (the fuzz harness's
    interrupt scenario, about one run in a hundred)."""
    script = """
import os, signal, raptor.cli, raptor_command
def command():
    signal.signal(signal.SIGTERM, raptor.cli._terminated)  # as the real command does
    return 3
raptor.cli.main = command
code = raptor_command.main()
os.kill(os.getpid(), signal.SIGTERM)
for _ in range(1000):  # bytecode boundaries, where Python runs pending handlers
    pass
print("ignored", code)
raise SystemExit(code)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (3, "ignored 3\n", "")


def test_a_signal_another_thread_receives_waits_for_the_held_block() -> None:
    """A SIGTERM the kernel hands to another thread (numpy's BLAS threads do
    not block it) still waits for the end of a held block: Python would run
    its handler in this thread in the middle of the block (a replaced
    program was left beside the new one when that happened in a rename)."""
    import threading

    from raptor._io import signals_held

    seen: list[str] = []
    go = threading.Event()
    # (Started before the block: a thread inherits its creator's signal mask.)
    thread = threading.Thread(target=lambda: go.wait() and signal.pthread_kill(threading.get_ident(),
                                                                            signal.SIGTERM))
    previous = signal.signal(signal.SIGTERM, lambda number, _: seen.append("handled"))
    try:
        thread.start()
        with signals_held():
            go.set()
            thread.join()
            for _ in range(1000):  # bytecode boundaries, where Python runs pending handlers
                time.sleep(0)
            seen.append("block ends")
        assert seen == ["block ends", "handled"]
    finally:
        signal.signal(signal.SIGTERM, previous)

