#!/usr/bin/env python3
"""Builds the Blender extension: blender/dist/skelnorm-VERSION.zip, the add-on in
blender/skelnorm_blender/ with the skelnorm wheel bundled (Blender installs it on enabling).

    python3 blender/build.py                  # builds the wheel with maturin, then the zip
    python3 blender/build.py --wheel W.whl    # bundles a wheel built before

maturin is looked for on PATH, then in .tools/python-venv (which .ci/run makes); the wheel is an
abi3 one (CPython 3.9 and newer), so it loads in Blender's own Python 3.11. Install the zip in
Blender with Edit › Preferences › Get Extensions › Install from Disk, or headless:
bpy.ops.extensions.package_install_files(filepath=ZIP, repo="user_default").
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ADDON = os.path.join(HERE, "skelnorm_blender")
DIST = os.path.join(HERE, "dist")


def find_maturin():
    found = shutil.which("maturin")
    if found:
        return found
    venv = os.path.join(REPO, ".tools", "python-venv", "bin", "maturin")
    if os.access(venv, os.X_OK):
        return venv
    sys.exit("build.py: maturin not found: `pip install maturin`, or pass --wheel W.whl")


def build_wheel(out_dir):
    maturin = find_maturin()
    print(f"building the skelnorm wheel with {maturin} (a release build: minutes the first time)")
    subprocess.run(
        [maturin, "build", "--release", "--strip", "--quiet", "--out", out_dir],
        cwd=os.path.join(REPO, "python"),
        check=True,
    )
    wheels = [f for f in os.listdir(out_dir) if f.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit(f"build.py: expected one wheel in {out_dir}, found {wheels}")
    return os.path.join(out_dir, wheels[0])


def manifest_with(wheel_name):
    with open(os.path.join(ADDON, "blender_manifest.toml"), encoding="utf-8") as f:
        text = f.read()
    filled, n = re.subn(r"(?m)^wheels = \[\]$", f'wheels = ["./wheels/{wheel_name}"]', text)
    if n != 1:
        sys.exit("build.py: blender_manifest.toml has no `wheels = []` line to fill")
    return filled


def version():
    with open(os.path.join(ADDON, "blender_manifest.toml"), encoding="utf-8") as f:
        match = re.search(r'(?m)^version = "([^"]+)"', f.read())
    if not match:
        sys.exit("build.py: blender_manifest.toml has no version")
    return match.group(1)


def write_zip(wheel, out):
    name = os.path.basename(wheel)
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for entry in sorted(os.listdir(ADDON)):
            path = os.path.join(ADDON, entry)
            if entry == "blender_manifest.toml":
                z.writestr(entry, manifest_with(name))
            elif entry.endswith(".py"):
                z.write(path, entry)
        z.write(wheel, f"wheels/{name}")
    os.replace(tmp, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", help="bundle this wheel instead of building one")
    args = parser.parse_args()
    os.makedirs(DIST, exist_ok=True)
    out = os.path.join(DIST, f"skelnorm-{version()}.zip")
    with tempfile.TemporaryDirectory() as tmp:
        if args.wheel:
            if not os.path.isfile(args.wheel):
                sys.exit(f"build.py: {args.wheel}: no such file")
            wheel = args.wheel
        else:
            wheel = build_wheel(tmp)
        write_zip(wheel, out)
    print(out)


if __name__ == "__main__":
    main()
