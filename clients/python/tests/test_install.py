"""`pip install ./clients/python` works and the installed package runs on the standard library
alone: pip installs a copy of this directory (pip's setuptools build writes build/ and
*.egg-info/ into the directory it is given) into a target folder, and a Python without
site-packages (`-S`: no pandas, numpy, cryptography, tqdm) imports and uses it from there.
Needs pip and setuptools (Debian python3-pip, python3-setuptools: scripts/prereqs.sh --test)."""
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

USE = r"""
import sys
sys.path.insert(0, sys.argv[1])
import sml
from sml.frames import maps_to_frame
from sml.signing import signature
assert sml.__file__.startswith(sys.argv[1]), sml.__file__
assert "pandas" not in sys.modules and "numpy" not in sys.modules
c = sml.SmlClient("http://127.0.0.1:1", "c1", "q83vEjRWeJq83vEjRWeJqw==")
assert hasattr(c.operations, "learnProject") and hasattr(c, "learn_batches")
assert maps_to_frame([{"count": 2, "median": "NaN"}], ["x"])[0]["attributes"] == "x"
print(signature("q83vEjRWeJq83vEjRWeJqw==", "m"))
try:
    c.encrypt_dsinfo({"type": "localfile"})
except ImportError as e:
    print(e)
"""


def test_pip_install_then_import_with_the_standard_library_only(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(HERE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache", "tests", "test"))
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                          "--disable-pip-version-check", "--quiet", "--target", str(target), str(src)],
                         capture_output=True, text=True, timeout=120)
    assert pip.returncode == 0, pip.stderr
    meta = next(target.glob("sml-*.dist-info")) / "METADATA"
    requires = [line for line in meta.read_text("utf-8").splitlines() if line.startswith("Requires-Dist:")]
    assert all("extra ==" in line for line in requires), requires  # runtime deps: none
    run = subprocess.run([sys.executable, "-S", "-c", USE, str(target)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    sig, error = run.stdout.splitlines()
    from sml.signing import signature
    assert sig == signature("q83vEjRWeJq83vEjRWeJqw==", "m")
    assert "python3-cryptography" in error
