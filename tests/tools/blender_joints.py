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
not animate stand where the file puts them without animation (see "unanimated"). At each sample the head of every
bone in world space is written; the head of a bone is its joint (the FBX/glTF node's or BVH
joint's origin). Two still poses are written too:
- "unanimated": no action, every object and bone where the file puts it without animation (the
  FBX nodes' Lcl transforms, the glTF nodes' TRS, the BVH OFFSETs): what a glTF writer's node
  TRS holds. Found by a second import without animation (see `unanimated`).
- "rest": Blender's rest, the armature's pose position set to REST: the edit bones, which the
  FBX importer builds from the skin's bind pose (cluster TransformLink / BindPose) where the file
  has one, else from Lcl; glTF: the nodes' TRS (`guess_original_bind_pose=False`); BVH: OFFSETs.
  It differs from "unanimated" where an FBX was bound in another pose than its nodes'.

Output JSON:

    {"source": IN, "format": "fbx"|"bvh"|"gltf", "blender": "5.0.1",
     "import_seconds": time of the import operator alone (no Python start, no factory reset, not
                       the second import for "unanimated"),
     "fps": frames per second of the frame<->time mapping below,
     "frame_origin": the frame where the file's time 0 lies,
     "unit": "metre" | "bvh file unit",
     "import_options": {...the operator's arguments...},
     "armatures": [{"name": object name, "bones": [bone names],
                    "rest": [[x,y,z] per bone], "unanimated": [[x,y,z] per bone],
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


def import_file(path, use_anim=True, gltf_options=None):
    """Imports `path` into the empty scene; returns (format, options, seconds, fps, origin, unit).
    `use_anim=False` (FBX only) leaves the animation out. `gltf_options` (glTF only) replaces the
    glTF options below (`{}`: the operator's defaults, as blender_outputs.py imports)."""
    ext = os.path.splitext(path)[1].lower()
    scene = bpy.context.scene
    if ext == ".fbx":
        # The operator's defaults, spelled out: file axes and unit scale applied, no manual axes,
        # pre/post rotations applied, leaf bones kept (they are the file's joints), bones not
        # reoriented (orientation does not move heads).
        opts = dict(global_scale=1.0, use_manual_orientation=False,
                    bake_space_transform=False, use_anim=use_anim, anim_offset=1.0,
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
        if gltf_options is not None:
            opts = dict(gltf_options)
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


def without_animations(path, tmp):
    """A copy of the glTF `path` in the folder `tmp` with no animations (relative URIs made
    absolute), for the unanimated pose."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    glb = data[:4] == b"glTF"
    if glb:
        jl = struct.unpack("<I", data[12:16])[0]
        doc = json.loads(data[20:20 + jl])
        rest = data[20 + jl:]
    else:
        doc = json.loads(data)
    doc.pop("animations", None)
    base = os.path.dirname(os.path.abspath(path))
    for key in ("buffers", "images"):
        for item in doc.get(key, []):
            uri = item.get("uri")
            if uri is not None and not uri.startswith("data:"):
                item["uri"] = os.path.join(base, uri)
    out = os.path.join(tmp, "unanimated" + (".glb" if glb else ".gltf"))
    text = json.dumps(doc).encode()
    with open(out, "wb") as f:
        if glb:
            text += b" " * (-len(text) % 4)
            f.write(b"glTF" + struct.pack("<II", 2, 12 + 8 + len(text) + len(rest)))
            f.write(struct.pack("<I", len(text)) + b"JSON" + text + rest)
        else:
            f.write(text)
    return out


def unanimated(path, fmt, gltf_options=None):
    """Every object's transform and every pose bone's basis as the file has them without
    animation. An import with animation is no good for this: the FBX and glTF importers assign
    the first action and the scene's first evaluation writes its frame back into the transforms
    and bases (seen on the shared FBX files: up to 6 units off). So: FBX imported again with
    `use_anim=False`; glTF imported from a copy without animations; BVH at rest (every BVH joint
    is animated in every frame anyway). `gltf_options`: as `import_file`'s."""
    import tempfile
    reset()
    with tempfile.TemporaryDirectory() as tmp:
        if fmt == "fbx":
            import_file(path, use_anim=False)
        elif fmt == "gltf":
            import_file(without_animations(path, tmp), gltf_options=gltf_options)
        else:
            import_file(path)
        base = {}
        for o in bpy.context.scene.objects:
            base[o.name] = o.matrix_basis.copy()
            if o.pose is not None:
                for pb in o.pose.bones:
                    m = pb.matrix_basis.copy()
                    if fmt == "bvh":
                        m.identity()
                    base[(o.name, pb.name)] = m
    reset()
    return base


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
                pb.matrix_basis = base[(obj.name, pb.name)]


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
    src_abs = os.path.abspath(src)
    ext = os.path.splitext(src_abs)[1].lower()
    base = unanimated(src_abs, {".fbx": "fbx", ".bvh": "bvh"}.get(ext, "gltf"))
    scene = bpy.context.scene
    fmt, opts, secs, fps, origin, unit = import_file(src_abs)
    arms = sorted((o for o in scene.objects if o.type == 'ARMATURE'), key=lambda o: o.name)
    out = {"source": src, "format": fmt, "blender": bpy.app.version_string,
           "import_seconds": secs, "fps": fps, "frame_origin": origin, "unit": unit,
           "import_options": opts, "armatures": []}
    for arm in arms:
        chain = ancestors(arm)
        # Pose bones follow the armature data's bone order.
        bones = [pb.name for pb in arm.pose.bones]
        # Unanimated: no action, the file's own transforms; rest: pose position REST.
        for o in [arm] + chain:
            assign(o, None, None, base)
        bpy.context.view_layer.update()
        still = heads(arm)
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
        out["armatures"].append({"name": arm.name, "bones": bones, "rest": rest,
                                 "unanimated": still, "clips": clips})
    with open(dst, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1:])
