"""The rest a Blender user edits (issue 40): every edit bone's head after Blender 5's glTF import
with the operator's defaults (`guess_original_bind_pose` on: edit bones are built from the
inverse bind matrices),.

Usage (with the Python that has the `bpy` module, `.tools/blender-venv/bin/python`):

    python tests/tools/blender_binds.py FILES.json OUT.json

FILES.json: {"files": [glTF/GLB/VRM path, ...]}; each is imported in this one process into an
empty scene (blender_joints.reset) with `bpy.ops.import_scene.gltf(filepath=COPY)` alone, COPY
being the file without its animations (blender_joints.without_animations): edit bones come from
the inverse bind matrices either way, but with animations the scene's first evaluation writes the
first action's frame into the armature objects' transforms.

Output JSON: {"blender": "5.0.1", "files": [{"path": FILE, "ok": the operator returned FINISHED,
"error": its exception's text or null, "heads": {bone name: [x, y, z]} every armature's edit-bone
heads in world space (armature matrix_world @ bone.head_local; a name in two armatures is left
out)}]}. Coordinates are glTF's (Y-up): Blender's
(x, y, z) is written as (x, z, -y).
"""

import json
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_joints import Y_UP, reset, without_animations  # noqa: E402


def one(path):
    import tempfile
    reset()
    out = {"path": path, "ok": False, "error": None, "heads": {}}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            still = without_animations(os.path.abspath(path), tmp)
            out["ok"] = bpy.ops.import_scene.gltf(filepath=still) == {'FINISHED'}
        except Exception as e:  # noqa: BLE001 (an import error is what this reports)
            out["error"] = f"{type(e).__name__}: {e}"
            return out
    scene = bpy.context.scene
    seen = {}
    for arm in (o for o in scene.objects if o.type == 'ARMATURE'):
        for b in arm.data.bones:
            seen.setdefault(b.name, []).append(Y_UP(arm.matrix_world @ b.head_local))
    out["heads"] = {name: ps[0] for name, ps in seen.items() if len(ps) == 1}
    return out


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: blender_binds.py FILES.json OUT.json")
    with open(argv[0]) as f:
        files = json.load(f)["files"]
    out = {"blender": bpy.app.version_string, "files": [one(p) for p in files]}
    with open(argv[1], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1:])
