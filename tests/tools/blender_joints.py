"""Blender as the reference importer: every joint's world position at every frame of every clip.

Usage (with the Python that has the `bpy` module, `.tools/blender-venv/bin/python`, as `.ci/run`
installs it):

    python tests/tools/blender_joints.py IN OUT.json

IN is .fbx (`bpy.ops.import_scene.fbx`), .bvh (`bpy.ops.import_anim.bvh`) or .glb/.gltf
(`bpy.ops.import_scene.gltf`). It is imported into an empty scene (factory settings, no startup
file, no user preferences). For every armature, and every action that animates it (a clip), the
action alone is assigned to the armature (NLA off, REPLACE, influence 1; the armature's ancestors
get the same clip's action or none, see `ancestor_action`) and played over its own frame range
(`action.frame_range`, the first to the last key), one sample per whole frame from frame_start
(plus frame_end when the range does not end on a whole step). Bones and objects that a clip does
not animate stand at their rest (the pose is reset before each clip). At each sample the head of every
bone in world space is written; the head of a bone is its joint (the FBX/glTF node's or BVH
joint's origin). The rest positions are the bone heads with the armature's pose position set to
REST, no action on the armature nor its ancestors, and every object at its imported, unanimated
transform.

Output JSON:

    {"source": IN, "format": "fbx"|"bvh"|"gltf", "blender": "5.0.1",
     "import_seconds": time of the import operator alone (no Python start, no factory reset),
     "fps": frames per second of the frame<->time mapping below,
     "frame_origin": the frame where the file's time 0 lies,
     "unit": "metre" | "bvh file unit",
     "import_options": {...the operator's arguments...},
     "armatures": [{"name": object name, "bones": [bone names],
                    "rest": [[x,y,z] per bone],
                    "clips": [{"name": action name, "take": FBX take (stack) name or null,
                               "keyed": false when the action has no key at all (sampled
                                        once, at time 0),
                               "frame_start": .., "frame_end": ..,
                               "times": [seconds in the file's timeline, per sample],
                               "positions": [[[x,y,z] per bone] per sample]}]}]}

Coordinates: glTF's Y-up, right-handed. Blender is Z-up: (x, y, z)_blender -> (x, z, -y). Every
importer converts the file's axes to Blender's (FBX: from the file's GlobalSettings
UpAxis/FrontAxis/CoordAxis; BVH and glTF: Y-up), so (x, z, -y) gives back the file's own Y-up
frame for a Y-up file.

Units: FBX positions are metres: the importer always multiplies `global_scale` (1 here) by the
file's `UnitScaleFactor` (centimetres per file unit) over 100 * the scene's unit scale (the
factory scene: metric, scale 1, one Blender unit = one metre), and puts that factor into the root
objects' transforms, so world positions are metres as the file means them. glTF is metres by definition. BVH has no unit: positions are in
the file's own numbers (`global_scale=1`).

Time convention (checked in the 5.0.1 importers' code, `io_scene_fbx/import_fbx.py`
`_convert_fbx_time_to_blender_time`, `io_anim_bvh/import_bvh.py`, `io_scene_gltf2/blender/imp/
animation_node.py`), written out per sample in "times":
- FBX: a key at file time t (KTime / 46186158000 s) lands on frame t * round(file fps) + 1
  (`anim_offset=1`, the operator's default). The take's LocalTime/ReferenceTime start is NOT
  subtracted: a take whose keys start at 2 s starts at frame 2*fps + 1. The importer scales key
  times by the *rounded* rate (scene.render.fps), even for 29.97 fps files, so
  time = (frame - 1) / render.fps; "fps" is render.fps and "frame_origin" is 1.
- BVH: BVH frame i (0-based) lands on frame 1 + i (`frame_start=1`, the default, clamped to >= 1;
  `use_fps_scale=False`), and frame i is at time i * "Frame Time", so
  time = (frame - 1) * frame_time; the scene's rate is set to the BVH's (`update_scene_fps=True`)
  and "fps" is 1 / frame_time.
- glTF: a key at time t lands on frame t * 24 (the factory scene rate), no offset:
  time = frame / 24, "frame_origin" 0.
So in every case time = (frame - frame_origin) / fps, and a test samples its own output at
"times".
"""

import json
import math
import os
import sys
import time

import bpy

Y_UP = lambda v: [v.x, v.z, -v.y]  # noqa: E731 (Blender Z-up -> glTF Y-up)


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    # Blender 5.0.1's FBX importer sets `light.cycles.cast_shadow`, which Cycles 5.0 no longer
    # has: any FBX with a light fails ("'CyclesLightSettings' object has no attribute
    # 'cast_shadow'"). With the Cycles add-on off, lights have no `cycles` and the importer skips
    # that line. Rendering is not needed here.
    import addon_utils
    addon_utils.disable("cycles", default_set=True)


def import_file(path):
    """Imports `path` into the empty scene; returns (format, options, seconds, fps, origin, unit)."""
    ext = os.path.splitext(path)[1].lower()
    scene = bpy.context.scene
    if ext == ".fbx":
        # The operator's defaults, spelled out: file axes and unit scale applied, no manual axes,
        # pre/post rotations applied, leaf bones kept (they are the file's joints), bones not
        # reoriented (orientation does not move heads).
        opts = dict(global_scale=1.0, use_manual_orientation=False,
                    bake_space_transform=False, use_anim=True, anim_offset=1.0,
                    use_prepost_rot=True, ignore_leaf_bones=False, force_connect_children=False,
                    automatic_bone_orientation=False, use_custom_props=False)
        t0 = time.perf_counter()
        bpy.ops.import_scene.fbx(filepath=path, **opts)
        secs = time.perf_counter() - t0
        return "fbx", opts, secs, float(scene.render.fps), opts["anim_offset"], "metre"
    if ext == ".bvh":
        opts = dict(global_scale=1.0, frame_start=1, use_fps_scale=False, update_scene_fps=True,
                    update_scene_duration=False, use_cyclic=False, rotate_mode='NATIVE',
                    axis_forward='-Z', axis_up='Y', target='ARMATURE')
        t0 = time.perf_counter()
        bpy.ops.import_anim.bvh(filepath=path, **opts)
        secs = time.perf_counter() - t0
        fps = scene.render.fps / scene.render.fps_base
        return "bvh", opts, secs, fps, float(opts["frame_start"]), "bvh file unit"
    if ext in (".glb", ".gltf", ".vrm"):
        # guess_original_bind_pose=False: the armature's rest is the glTF nodes' own TRS (what a
        # glTF rest means), not a bind pose guessed from the inverse bind matrices.
        opts = dict(guess_original_bind_pose=False, bone_heuristic='BLENDER',
                    import_scene_as_collection=False)
        t0 = time.perf_counter()
        bpy.ops.import_scene.gltf(filepath=path, **opts)
        secs = time.perf_counter() - t0
        # The glTF importer places keys at t * render.fps * render.fps_base (factory: 24 * 1).
        fps = scene.render.fps * scene.render.fps_base
        return "gltf", opts, secs, fps, 0.0, "metre"
    raise SystemExit(f"blender_joints.py: unknown extension {ext!r}")


def channelbags(action):
    for layer in action.layers:
        for strip in layer.strips:
            yield from strip.channelbags


def slot_for(action, arm):
    """The slot of `action` whose channels animate `arm`'s bones (or `arm` itself), or None."""
    bones = {b.name for b in arm.data.bones}
    best = None
    for cb in channelbags(action):
        if cb.slot is None or cb.slot.target_id_type != 'OBJECT':
            continue
        for fc in cb.fcurves:
            p = fc.data_path
            if p.startswith('pose.bones["'):
                name = p[len('pose.bones["'):].split('"]', 1)[0]
                if name in bones:
                    return cb.slot
    # An action for the armature object alone (no bone channel), as the FBX importer names it.
    if action.name.startswith(arm.name + "|"):
        for cb in channelbags(action):
            if cb.slot is not None and cb.slot.target_id_type == 'OBJECT':
                best = cb.slot
    return best


def take_of(action, obj):
    """The FBX take (stack) name of an action the FBX importer made for `obj` ("OBJ|TAKE" or
    "OBJ|TAKE|LAYER"), else None."""
    prefix = obj.name + "|"
    return action.name[len(prefix):] if action.name.startswith(prefix) else None


def ancestor_action(anc, action, take):
    """The action and slot that play on the armature's ancestor `anc` in the same clip: a slot
    of the same action made for `anc` (glTF keeps one action per animation, a slot per object),
    else the FBX importer's action for `anc` in the same take, else None."""
    for slot in action.slots:
        if slot.target_id_type == 'OBJECT' and slot.name_display == anc.name:
            return action, slot
    if take is not None:
        a = bpy.data.actions.get(anc.name + "|" + take)
        if a is not None and len(a.slots):
            return a, a.slots[0]
    return None, None


def assign(obj, action, slot, base):
    ad = obj.animation_data or obj.animation_data_create()
    ad.use_nla = False
    ad.action = action
    if action is not None:
        ad.action_slot = slot
        ad.action_blend_type = 'REPLACE'
        ad.action_influence = 1.0
        ad.action_extrapolation = 'HOLD'
    else:
        obj.matrix_basis = base[obj.name]
        if obj.pose is not None:
            for pb in obj.pose.bones:
                pb.matrix_basis.identity()


def heads(arm):
    dg = bpy.context.evaluated_depsgraph_get()
    ev = arm.evaluated_get(dg)
    mw = ev.matrix_world
    return [Y_UP(mw @ pb.head) for pb in ev.pose.bones]


def ancestors(obj):
    out = []
    while obj.parent is not None:
        obj = obj.parent
        out.append(obj)
    return out


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: blender_joints.py IN OUT.json")
    src, dst = argv
    reset()
    scene = bpy.context.scene
    fmt, opts, secs, fps, origin, unit = import_file(os.path.abspath(src))
    # The imported, unanimated transforms (the importers write them before any frame change).
    base = {o.name: o.matrix_basis.copy() for o in scene.objects}
    arms = sorted((o for o in scene.objects if o.type == 'ARMATURE'), key=lambda o: o.name)
    out = {"source": src, "format": fmt, "blender": bpy.app.version_string,
           "import_seconds": secs, "fps": fps, "frame_origin": origin, "unit": unit,
           "import_options": opts, "armatures": []}
    for arm in arms:
        chain = ancestors(arm)
        # Pose bones follow the armature data's bone order.
        bones = [pb.name for pb in arm.pose.bones]
        # Rest: nothing animated, pose position REST.
        for o in [arm] + chain:
            assign(o, None, None, base)
        arm.data.pose_position = 'REST'
        bpy.context.view_layer.update()
        rest = heads(arm)
        arm.data.pose_position = 'POSE'
        clips = []
        for action in sorted(bpy.data.actions, key=lambda a: a.name):
            slot = slot_for(action, arm)
            if slot is None:
                continue
            take = take_of(action, arm) if fmt == "fbx" else None
            # Start from rest: bones (and objects) a clip leaves alone stand at their rest, not
            # where the previous clip left them.
            for o in [arm] + chain:
                assign(o, None, None, base)
            assign(arm, action, slot, base)
            for anc in chain:
                a, s = ancestor_action(anc, action, take)
                assign(anc, a, s, base)
            keys = [k.co.x for cb in channelbags(action) for fc in cb.fcurves
                    for k in fc.keyframe_points]
            if keys:
                start, end = (float(x) for x in action.frame_range)
                frames = [start + k for k in range(int(math.floor(end - start + 1e-6)) + 1)]
                if end - frames[-1] > 1e-6:
                    frames.append(end)
            else:
                # A take with no keys at all (the FBX importer still makes its action, with
                # constant channels): one sample at the file's time 0.
                start = end = origin
                frames = [origin]
            times, positions = [], []
            for f in frames:
                whole = math.floor(f)
                scene.frame_set(int(whole), subframe=f - whole)
                times.append((f - origin) / fps)
                positions.append(heads(arm))
            clips.append({"name": action.name, "take": take, "keyed": bool(keys),
                          "frame_start": start,
                          "frame_end": end, "times": times, "positions": positions})
        for o in [arm] + chain:
            assign(o, None, None, base)
        out["armatures"].append({"name": arm.name, "bones": bones, "rest": rest, "clips": clips})
    with open(dst, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1:])
