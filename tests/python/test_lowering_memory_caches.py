"""The lowering's caches of copies (a window of a value packed once, copied
once to a core, for every reader of it) give their memory back when a core
runs out: a U-Net-like network (an upsampled map concatenated with its skip
connection) pipelined on a small-memory chip kept one packed window per
reader until the map died, and stopped with "needs ... more bytes of local
memory" (U-Net's 8-stage pipeline on the default chip did the same). The
program must still equal torch."""

from __future__ import annotations

from pathlib import Path

import torch


from pim_helpers import compile_and_run, isaac_target, randomize

# Interleaved transfers on 640 KiB cores: the last convolution's copies read
# windows of the 64 x 64 concatenation; without the eviction one core holds
# every window packed for them and the next allocation fails.
LOCAL_BYTES = 640 * 1024


class _SkipUp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.down = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.inner = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.up = torch.nn.Conv2d(24, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skip = torch.relu(self.down(x))
        y = torch.relu(self.inner(torch.nn.functional.max_pool2d(skip, 2)))
        y = torch.nn.functional.interpolate(y, scale_factor=2, mode="nearest")
        return self.up(torch.cat([y, skip], 1))


def test_a_full_core_evicts_cached_windows_and_the_program_equals_torch(tmp_path: Path) -> None:
    target_path = isaac_target(tmp_path, local_bytes=LOCAL_BYTES)
    torch.manual_seed(0)
    model = randomize(_SkipUp().eval())
    x = torch.randn(1, 3, 64, 64)
    run = compile_and_run(model, x, tmp_path / "program", target=target_path, pipeline=4, replicate="time",
                          crossing="interleaved", pimsim="none")
    assert run.manifest["schedule"]["crossing"] == "interleaved"
    assert max(c["local_bytes"] for c in run.manifest["cores"]) <= LOCAL_BYTES
    assert abs(run.output - run.reference).max() <= 1e-5 * max(1.0, abs(run.reference).max())
