"""The Blender extension as a user runs it (issue 41): installed from its zip into a headless
Blender 5, its operators called by their ids, and what they made read back.

Usage (with the Python that has the `bpy` module, `.tools/blender-venv/bin/python`, and HOME set
to a scratch folder: the extension installs into the user's Blender folders):

    python tests/tools/blender_extension.py ZIP JOBS.json OUT.json

JOBS.json: {"imports": [{"path": FILE, "clips": {CLIP: [seconds, ...]}}],
            "retarget": null | {"target": FILE, "source": FILE, "clip": CLIP,
                                "ops": {"plant": bool, "floor": bool, "filter": bool}},
            "batch": null | {"input": FOLDER, "output": FOLDER},
            "errors": [FILE, ...]}

- each import: `bpy.ops.skelnorm.import_normalized(filepath=FILE)` into an empty scene; then
  every armature bone's edit-bone head (world space), the box of every mesh's vertices at the
  rest (the armatures in rest position), and each bone's head at each given time of each given
  clip (the action Blender's importer made of it playing);
- the retarget: TARGET imported by `skelnorm.import_normalized`, then
  `bpy.ops.skelnorm.retarget()` with SOURCE as the source file; the new action of CLIP played on
  the target: every bone's head at every frame of the action (its frame range); then SOURCE
  imported by Blender's glTF importer, playing CLIP, as the source armature: the one new action's
  heads at its frames (`armature_heads`);
- the batch: `bpy.ops.skelnorm.batch()` over INPUT into OUTPUT (normalize, the panel's
  defaults): the report the panel keeps;
- errors: `skelnorm.import_normalized` on each FILE must fail: the operator's RuntimeError text
  (Blender's report), which must not be a Python traceback.

Output JSON: {"blender": version, "installed": bool, "imports": [{"path", "ok", "error",
"report": the import report the panel shows, "heads": {bone: [x, y, z]}, "bounds": null | {"min", "max"}, "clips": {CLIP: [{bone: [x, y, z]} per time]}}], "retarget": null |
{"ok", "error", "actions": [names], "fps", "frames": [frame, ...], "heads": [{bone: [x, y, z]}
per frame], "report": the scene's kept report}, "batch": null | {"ok", "error", "kept"},
"errors": [{"path", "message"}]}. Coordinates are
glTF's (Y-up): Blender's (x, y, z) is written as (x, z, -y).
"""

import json
import sys

import bpy


def y_up(v):
    return [v[0], v[2], -v[1]]


def clear():
    for collection in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                       bpy.data.materials, bpy.data.images, bpy.data.cameras, bpy.data.lights):
        for item in list(collection):
            collection.remove(item)


def armatures():
    return [o for o in bpy.context.scene.objects if o.type == 'ARMATURE']


def heads_now(arm):
    return {pb.name: y_up(arm.matrix_world @ pb.head) for pb in arm.pose.bones}


def rest_bounds(arms):
    """The box of every mesh's vertices with the armatures at their rest, world space (Y-up), or
    None without a mesh."""
    for arm in arms:
        arm.data.pose_position = 'REST'
    bpy.context.view_layer.update()
    deps = bpy.context.evaluated_depsgraph_get()
    lo, hi = [float("inf")] * 3, [float("-inf")] * 3
    # Blender's importer adds an icosphere of its own as the bones' display shape: not the file's.
    shapes = {pb.custom_shape for arm in arms for pb in arm.pose.bones if pb.custom_shape}
    for ob in bpy.context.scene.objects:
        if ob.type != 'MESH' or ob in shapes:
            continue
        ev = ob.evaluated_get(deps)
        mesh = ev.to_mesh()
        for v in mesh.vertices:
            p = y_up(ev.matrix_world @ v.co)
            lo = [min(a, b) for a, b in zip(lo, p)]
            hi = [max(a, b) for a, b in zip(hi, p)]
        ev.to_mesh_clear()
    for arm in arms:
        arm.data.pose_position = 'POSE'
    return None if lo[0] == float("inf") else {"min": lo, "max": hi}


def fps():
    r = bpy.context.scene.render
    return r.fps / r.fps_base


def import_one(job):
    clear()
    out = {"path": job["path"], "ok": False, "error": None, "heads": {}, "clips": {},
           "report": None}
    try:
        out["ok"] = bpy.ops.skelnorm.import_normalized(filepath=job["path"]) == {'FINISHED'}
    except RuntimeError as e:
        out["error"] = str(e)
        return out
    out["report"] = json.loads(bpy.context.scene.get("skelnorm_report", "{}")).get("import")
    arms = armatures()
    for arm in arms:
        for b in arm.data.bones:
            out["heads"][b.name] = y_up(arm.matrix_world @ b.head_local)
    out["bounds"] = rest_bounds(arms)
    scene = bpy.context.scene
    for clip, times in (job.get("clips") or {}).items():
        action = next((a for a in bpy.data.actions if a.name == clip
                       or a.name.startswith(clip + "_")), None)
        if action is None or len(arms) != 1:
            out["clips"][clip] = None
            continue
        arm = arms[0]
        arm.animation_data.action = action
        samples = []
        for t in times:
            f = t * fps()
            scene.frame_set(int(f), subframe=f - int(f))
            samples.append(heads_now(arm))
        out["clips"][clip] = samples
    return out


def retarget(job):
    clear()
    out = {"ok": False, "error": None, "actions": [], "fps": fps(), "frames": [], "heads": [],
           "report": None}
    try:
        bpy.ops.skelnorm.import_normalized(filepath=job["target"])
        (arm,) = armatures()
        bpy.context.view_layer.objects.active = arm
        before = set(bpy.data.actions)
        s = bpy.context.scene.skelnorm_retarget
        s.source_kind = 'FILE'
        s.source_file = job["source"]
        for name, on in (job.get("ops") or {}).items():
            setattr(s, name, on)
        out["ok"] = bpy.ops.skelnorm.retarget() == {'FINISHED'}
    except (RuntimeError, ValueError) as e:
        out["error"] = str(e)
        return out
    made = [a for a in bpy.data.actions if a not in before]
    out["actions"] = [a.name for a in made]
    out["report"] = json.loads(bpy.context.scene.get("skelnorm_report", "{}"))
    action = next((a for a in made if a.name == job["clip"]), None)
    if action is None:
        out["error"] = f"no new action named {job['clip']}"
        return out
    out["frames"], out["heads"] = play(arm, action)
    # The same source as an armature: imported by Blender's glTF importer, playing the clip.
    before, actions_before = set(bpy.context.scene.objects), set(bpy.data.actions)
    bpy.ops.import_scene.gltf(filepath=job["source"])
    (source,) = [o for o in set(bpy.context.scene.objects) - before if o.type == 'ARMATURE']
    # The importer's action of the clip (named `walk.001` beside the target's new `walk`).
    source.animation_data.action = next(a for a in set(bpy.data.actions) - actions_before
                                        if a.name.startswith(job["clip"]))
    s.source_kind = 'ARMATURE'
    s.source_armature = source
    s.prefix = "from_armature_"
    bpy.context.view_layer.objects.active = arm
    actions = set(bpy.data.actions)
    try:
        out["armature_ok"] = bpy.ops.skelnorm.retarget() == {'FINISHED'}
    except RuntimeError as e:
        out["armature_error"] = str(e)
        return out
    made = [a for a in bpy.data.actions if a not in actions]
    out["armature_actions"] = [a.name for a in made]
    if len(made) == 1:
        _, out["armature_heads"] = play(arm, made[0])
    return out


def play(arm, action):
    """Every bone's head at every frame of `action` played on `arm`."""
    arm.animation_data.action = action
    start, end = (int(round(f)) for f in action.frame_range)
    frames, heads = [], []
    for frame in range(start, end + 1):
        bpy.context.scene.frame_set(frame)
        frames.append(frame)
        heads.append(heads_now(arm))
    return frames, heads


def batch(job):
    clear()
    out = {"ok": False, "error": None, "kept": None}
    s = bpy.context.scene.skelnorm_batch
    s.input_dir, s.output_dir = job["input"], job["output"]
    try:
        out["ok"] = bpy.ops.skelnorm.batch() == {'FINISHED'}
    except RuntimeError as e:
        out["error"] = str(e)
        return out
    out["kept"] = json.loads(bpy.context.scene.get("skelnorm_report", "{}")).get("batch")
    return out


def error_of(path):
    clear()
    try:
        bpy.ops.skelnorm.import_normalized(filepath=path)
    except RuntimeError as e:
        return {"path": path, "message": str(e)}
    return {"path": path, "message": None}


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: blender_extension.py ZIP JOBS.json OUT.json")
    zip_path, jobs_path, out_path = argv
    with open(jobs_path) as f:
        jobs = json.load(f)
    installed = bpy.ops.extensions.package_install_files(
        filepath=zip_path, repo="user_default", enable_on_install=True) == {'FINISHED'}
    out = {"blender": bpy.app.version_string, "installed": installed}
    out["imports"] = [import_one(j) for j in jobs.get("imports", [])]
    out["retarget"] = retarget(jobs["retarget"]) if jobs.get("retarget") else None
    out["batch"] = batch(jobs["batch"]) if jobs.get("batch") else None
    out["errors"] = [error_of(p) for p in jobs.get("errors", [])]
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1:])
