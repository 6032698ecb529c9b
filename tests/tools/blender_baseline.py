"""How long Blender takes to import each file: the baseline of issue 15's "an FBX must convert
faster than Blender imports it". Prints a markdown table (tests/tools/blender_baseline.md holds
one run).

    python tests/tools/blender_baseline.py [--runs N] [--out TABLE.md] FILE...

Per file: blender_joints.py's facts (armatures, bones, clips with frame ranges, fps, height = the
largest extent of the rest positions) and the import operator's time alone (after a factory reset
to an empty scene; not counting Python's start, `import bpy` nor the reset): the first import in
this process that has the animation (blender_joints.py imports an FBX or glTF once before it
without animation, so the file is in the OS cache and the importer's code warm) and the median
of N more.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blender_joints  # noqa: E402


def height(rest):
    if not rest:
        return 0.0
    return max(max(p[i] for p in rest) - min(p[i] for p in rest) for i in range(3))


def main(argv):
    ap = argparse.ArgumentParser(prog="blender_baseline.py")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", help="write the table here (Blender's importers print to stdout)")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    rows = []
    for path in args.files:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "j.json")
            blender_joints.main([path, out])
            with open(out) as f:
                facts = json.load(f)
        times = []
        for _ in range(args.runs):
            blender_joints.reset()
            times.append(blender_joints.import_file(os.path.abspath(path))[2])
        rows.append((path, facts, facts["import_seconds"], statistics.median(times)))
    lines = []
    print = lines.append  # noqa: A001 (collect the table)
    print("| file | armature: bones | clips (action: frames) | fps | height | import s, first | "
          f"import s, median of {args.runs} |")
    print("|---|---|---|---|---|---|---|")
    for path, facts, first, med in rows:
        arms = "; ".join(f"`{a['name']}`: {len(a['bones'])}" for a in facts["armatures"])
        clips = "; ".join(
            f"`{c['name']}`: {c['frame_start']:g}..{c['frame_end']:g}"
            + ("" if c["keyed"] else " (no keys)")
            for a in facts["armatures"] for c in a["clips"])
        h = "; ".join(f"{height(a['rest']):.4g}" for a in facts["armatures"])
        unit = " (file units)" if facts["unit"] != "metre" else " m"
        print(f"| {os.path.basename(path)} | {arms} | {clips} | {facts['fps']:.6g} | {h}{unit} | "
              f"{first:.3f} | {med:.3f} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
