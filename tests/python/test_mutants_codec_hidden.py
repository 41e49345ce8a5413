"""Hand-made mutants of raptor.codec (and the codec-report command) that
no other test pinned: the default placement is non-local coalesced, shown
on U-Net, whose policy-W placement differs between non-local and
non-local coalesced (the small models of test_defaults.py place alike
under both, so a default of 'nonlocal' passed there)."""

from __future__ import annotations

import contextlib
import io
import json

from raptor import cli, codec, sources


def _placed(**options) -> str:
    module = sources.load("unet", weights_as=None).module
    codec.place(module, **options)
    return str(module)


def test_place_defaults_to_policy_w_nonlocal_coalesced() -> None:
    default = _placed()
    assert default == _placed(policy="W", placement="nonlocal-coalesced")
    assert default != _placed(policy="W", placement="nonlocal")


def _report(*options: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["codec-report", "unet", "--json", *options]) == 0
    return json.loads(out.getvalue())


def test_codec_report_defaults_to_nonlocal_coalesced() -> None:
    default = _report()
    assert default["placement"] == "nonlocal-coalesced" and default["policy"] == "W"
    assert _report("--placement", "nonlocal-coalesced") == default
    nonlocal_ = _report("--placement", "nonlocal")
    assert {k: v for k, v in nonlocal_.items() if k != "placement"} != \
        {k: v for k, v in default.items() if k != "placement"}
