"""docs/scheduling.md's complete target file is a target Raptor loads, it
names every key the reader accepts (the `pimsim` keys by the reader's own
list of them), its pimsim values are the defaults it says they are, and a
compile with it writes them into pimsim-nn's chip.json."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from raptor import _raptor

DOC = Path(__file__).parents[2] / "docs" / "scheduling.md"
RAPTOR = [sys.executable, "-m", "raptor"]


def _example() -> dict:
    found = re.search(r"<!-- target-example -->\n```json\n(.*?)```", DOC.read_text(), re.S)
    assert found, "docs/scheduling.md lost its target example"
    return json.loads(found.group(1))


def _refusal(target: dict) -> str:
    with pytest.raises(Exception) as e:
        _raptor.Target.parse(json.dumps(target), "t.json")
    return str(e.value)


def test_the_example_names_every_key_the_reader_accepts() -> None:
    example = _example()
    target = _raptor.Target.parse(json.dumps(example), "example.json")
    assert target.to_dict() == example
    # The reader lists what it expects when given a key it does not know.
    top = re.search(r"expected ([a-z_, ]+)\)", _refusal({**example, "zzz": 1}))
    assert top and set(top.group(1).split(", ")) - {"timing_cycles"} == set(example)
    listed = re.search(r"unknown key 'pimsim.zzz' \(expected ([a-z_, ]+)\)",
                       _refusal({**example, "pimsim": {"zzz": 1}}))
    assert listed and set(listed.group(1).split(", ")) == set(example["pimsim"])


class _Conv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def test_the_example_compiles_and_its_pimsim_values_are_the_defaults(tmp_path: Path) -> None:
    example = _example()
    chip = tmp_path / "chip16.json"
    chip.write_text(json.dumps(example))
    source = tmp_path / "conv.pt2"
    torch.export.save(torch.export.export(_Conv().eval(), (torch.randn(1, 3, 8, 8),)), source)

    def chip_json(target: dict, name: str) -> dict:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(target))
        out = tmp_path / name
        run = subprocess.run(RAPTOR + ["compile", str(source), "-o", str(out), "--target", str(path),
                                       "--precision", "int8", "-q"], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        return json.loads((out / "chip.json").read_text())

    written = chip_json(example, "example")
    assert written == chip_json({k: v for k, v in example.items() if k != "pimsim"}, "defaults")
    # A value that differs from the default reaches chip.json.
    changed = chip_json({**example, "pimsim": {**example["pimsim"], "adc_count": 7}}, "changed")
    assert '"adc_count": 2' in json.dumps(written) and '"adc_count": 7' in json.dumps(changed)
