"""Blender as a second real client of skelnorm's outputs (issue 16): each file imported as a user
imports it, and what came in: armatures and bones, actions and their frame ranges, and where given
nodes stand at given times of given clips.

Usage (with the Python that has the `bpy` module, `.tools/blender-venv/bin/python`):

    python tests/tools/blender_outputs.py JOBS.json OUT.json

JOBS.json: {"files": [{"path": FILE, "positions": null | {"names": [glTF node name, ...],
                                                       "clips": {CLIP: [seconds, ...]}}}]}

Every file is imported in this one process (Python's start, `import bpy` and the first factory
reset cost 1 to 2 s; an import of a small glTF 0.01 to 0.2 s), each into an empty scene
(blender_joints.reset: factory settings, no startup file, Cycles off) with
`bpy.ops.import_scene.gltf(filepath=FILE)` and no other argument: the operator's defaults, what a
user gets (`guess_original_bind_pose` on, the scene as a collection).

Output JSON:

    {"blender": "5.0.1",
     "fps": the glTF importer's rate: a key at t s lands on frame t * fps
            (render.fps * render.fps_base, io_scene_gltf2/blender/imp/animation_node.py; no
            offset, so time = frame / fps; the factory scene: 24),
     "scene_fps": render.fps / render.fps_base, the scene's playback rate (equal to "fps" while
                  fps_base is 1, as in the factory scene),
     "seconds": this script's time after `import bpy`,
     "files": [{"path": FILE,
                "ok": the operator returned FINISHED and raised nothing,
                "result": the operator's return value as a list, or null when it raised,
                "error": the exception's text, or null,
                "messages": ["LEVEL: text", ...] the importer's log at WARNING and above (its
                            loggers `glTFImporter` and `glTFImporter_errors`),
                "seconds": the operator's time,
                "armatures": [{"name": object name, "bones": [bone names]}],
                "objects": [{"name", "type"}] every object of the scene,
                "actions": [{"name", "frame_range": action.frame_range,
                             "keys": [first, last] key frame over all its F-curves, or null,
                             "slots": [[target ID type, display name], ...]}],
                "positions": null | {"found": ["bone ARMATURE" | "object" | null per name],
                                     "still": [[x, y, z] or null per name] without animation,
                                     "clips": {CLIP: [[[x, y, z] or null per name] per time]},
                                     "missing_clips": [CLIP without an action of its name]}}]}

Positions (files that ask for them): each clip is the action the importer named after the glTF
animation. It is assigned alone (NLA off, REPLACE, influence 1, HOLD) to every object it has an
OBJECT slot for, with that slot; every other object gets no action; every object and pose bone
first goes back to the file's unanimated transforms (blender_joints.unanimated, a second import
of a copy without animations, with the same defaults): "still" is that pose, with no action
assigned. Then for each time t the scene goes to
frame t * fps exactly (`scene.frame_set(whole, subframe=rest)`), and each name is looked up as a
bone of exactly one armature (its posed head in world space: the glTF node's origin) or else as
an object (its world origin: a glTF node that is no joint becomes an empty). Coordinates are
glTF's: Blender is Z-up and the importer maps glTF's (x, y, z) to Blender's (x, -z, y), so
Blender's (x, y, z) is written as (x, z, -y); metres as in the file.
"""

import json
import logging
import math
import os
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_joints import Y_UP, assign, channelbags, reset, unanimated  # noqa: E402

DEFAULTS = {}


class Messages(logging.Handler):
    """The glTF importer's log lines at WARNING and above."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(f"{record.levelname}: {record.getMessage()}")


def describe_actions():
    out = []
    for action in sorted(bpy.data.actions, key=lambda a: a.name):
        frames = [k.co.x for cb in channelbags(action) for fc in cb.fcurves
                  for k in fc.keyframe_points]
        out.append({"name": action.name,
                    "frame_range": [float(x) for x in action.frame_range],
                    "keys": [min(frames), max(frames)] if frames else None,
                    "slots": [[s.target_id_type, s.name_display] for s in action.slots]})
    return out


def locator(names):
    """For each name, a function giving its world position (Y-up) and what it was found as."""
    scene = bpy.context.scene
    arms = [o for o in scene.objects if o.type == 'ARMATURE']
    found, where = [], []
    for name in names:
        owners = [a for a in arms if name in a.pose.bones]
        if len(owners) == 1:
            found.append(f"bone {owners[0].name}")
            where.append(("bone", owners[0].name, name))
        elif not owners and name in scene.objects:
            found.append("object")
            where.append(("object", name, None))
        else:
            found.append(None)
            where.append(None)

    def positions():
        dg = bpy.context.evaluated_depsgraph_get()
        out = []
        for w in where:
            if w is None:
                out.append(None)
            elif w[0] == "bone":
                ev = scene.objects[w[1]].evaluated_get(dg)
                out.append(Y_UP(ev.matrix_world @ ev.pose.bones[w[2]].head))
            else:
                ev = scene.objects[w[1]].evaluated_get(dg)
                out.append(Y_UP(ev.matrix_world.translation))
        return out

    return found, positions


def sample(path, request, fps):
    """Where the named nodes stand at the requested times of each clip (see the docstring)."""
    base = unanimated(path, "gltf", gltf_options=DEFAULTS)
    bpy.ops.import_scene.gltf(filepath=path, **DEFAULTS)
    scene = bpy.context.scene
    found, positions = locator(request["names"])
    for o in scene.objects:
        assign(o, None, None, base)
    still = positions()
    clips, missing = {}, []
    for name, times in request["clips"].items():
        action = bpy.data.actions.get(name)
        if action is None:
            missing.append(name)
            continue
        slots = {s.name_display: s for s in action.slots if s.target_id_type == 'OBJECT'}
        for o in scene.objects:
            assign(o, None, None, base)
        for o in scene.objects:
            if o.name in slots:
                assign(o, action, slots[o.name], base)
        rows = []
        for t in times:
            f = t * fps
            whole = math.floor(f)
            scene.frame_set(int(whole), subframe=f - whole)
            rows.append(positions())
        clips[name] = rows
    return {"found": found, "still": still, "clips": clips, "missing_clips": missing}


def one(job, log):
    """Imports one file into an empty scene and describes what came in."""
    path = os.path.abspath(job["path"])
    reset()
    log.lines = []
    scene = bpy.context.scene
    out = {"path": job["path"], "ok": False, "result": None, "error": None}
    t0 = time.perf_counter()
    try:
        result = bpy.ops.import_scene.gltf(filepath=path, **DEFAULTS)
        out["result"] = sorted(result)
        out["ok"] = result == {'FINISHED'}
    except Exception as e:  # noqa: BLE001 (an import error is what this reports)
        out["error"] = f"{type(e).__name__}: {e}"
    out["seconds"] = time.perf_counter() - t0
    out["messages"] = list(log.lines)
    out["armatures"] = [{"name": o.name, "bones": [b.name for b in o.data.bones]}
                        for o in sorted(scene.objects, key=lambda o: o.name)
                        if o.type == 'ARMATURE']
    out["objects"] = [{"name": o.name, "type": o.type}
                      for o in sorted(scene.objects, key=lambda o: o.name)]
    out["actions"] = describe_actions()
    out["positions"] = None
    if out["ok"] and job.get("positions"):
        out["positions"] = sample(path, job["positions"], importer_fps())
    return out


def importer_fps():
    r = bpy.context.scene.render
    return r.fps * r.fps_base


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: blender_outputs.py JOBS.json OUT.json")
    t0 = time.perf_counter()
    with open(argv[0]) as f:
        jobs = json.load(f)
    log = Messages()
    for name in ("glTFImporter", "glTFImporter_errors"):
        logging.getLogger(name).addHandler(log)
    files = [one(job, log) for job in jobs["files"]]
    reset()
    r = bpy.context.scene.render
    out = {"blender": bpy.app.version_string, "fps": importer_fps(),
           "scene_fps": r.fps / r.fps_base, "seconds": time.perf_counter() - t0,
           "files": files}
    with open(argv[1], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1:])
