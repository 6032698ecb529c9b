"""Blender as a second FBX and BVH writer: our glTF fixtures exported by Blender, for the reader
tests (made at test time into a temporary folder, never committed).

Usage (with the Python that has the `bpy` module, `.tools/blender-venv/bin/python`):

    python tests/tools/blender_export.py IN.glb OUT.fbx [--fps N]
    python tests/tools/blender_export.py IN.glb OUT.bvh [--clip NAME] [--fps N]

IN is imported into an empty scene (factory settings, Cycles off) as blender_joints.py does
(`guess_original_bind_pose=False`: the armature's rest, and so the FBX's bind pose, is the glTF
nodes' TRS, not a pose guessed from the inverse bind matrices). The
glTF importer places a key at time t on frame t * fps; the scene's rate is set to --fps first
(default 24, Blender's own) so that frames are the sampling grid of the bake.

FBX: `bpy.ops.export_scene.fbx` of the armatures and meshes (`object_types={'ARMATURE', 'MESH'}`:
the glTF importer makes a leaf node that is not a skin joint, such as mixamo's `*_End` and `*4`,
an empty parented to a bone; exported, each such empty would carry its own copy of every take, so
they are left out), no leaf bones added (`add_leaf_bones=False`: the joints are the glTF skin's
joints), every action baked as its own take (`bake_anim_use_all_actions=True`,
`bake_anim_use_nla_strips=False`), a key at every frame (`bake_anim_step=1`,
`bake_anim_simplify_factor=0`, `bake_anim_force_startend_keying=True`), each action over its own
frame range. Blender names each take "OBJECT|ACTION" (e.g. "Armature|walk"). Axes: the
exporter's defaults (-Z forward, Y up, so the FBX is Y-up like the glTF); unit: metres
(`apply_unit_scale=True`, `global_scale=1`, `apply_scale_options='FBX_SCALE_NONE'`: Blender writes
UnitScaleFactor 100, one file unit = one metre).

BVH: `bpy.ops.export_anim.bvh` of the one armature and one action (--clip NAME, an action name
as in the glTF's animation names; default the first by name), assigned alone (NLA off), over the
action's frame range rounded out to whole frames; "Frame Time" is 1 / fps. Rotation order: each
bone's own (`rotate_mode='NATIVE'`); positions in metres (`global_scale=1`); every joint carries
rotations and positions (`root_transform_only=False`). Beware: Blender's BVH exporter writes
the armature's own space as it is, with no axis conversion and without the armature object's
transform: a glTF armature comes out Z-up (Blender's axes), and mixamo.glb's armature, scaled
0.01 by its node, comes out in centimetres (Hips OFFSET 0 0 100). Blender's BVH importer (Y-up by
default) then lays such a file on its back. Both readers read the same file, so a comparison of
skelnorm and Blender on it holds; only the figure's orientation is odd.

Prints one JSON line: {"out": OUT, "seconds": export time, "takes" or "clip": ...}.
"""

import argparse
import json
import math
import os
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_joints import reset, unanimated  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(prog="blender_export.py")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--clip", help="BVH only: the action to export (default: first by name)")
    ap.add_argument("--fps", type=float, default=24.0, help="scene rate (default 24)")
    args = ap.parse_args(argv)
    src = os.path.abspath(args.input)
    base = unanimated(src, "gltf")
    scene = bpy.context.scene
    scene.render.fps = int(round(args.fps))
    scene.render.fps_base = scene.render.fps / args.fps
    bpy.ops.import_scene.gltf(filepath=src, guess_original_bind_pose=False,
                              bone_heuristic='BLENDER', import_scene_as_collection=False)
    out = os.path.abspath(args.output)
    ext = os.path.splitext(out)[1].lower()
    arms = sorted((o for o in scene.objects if o.type == 'ARMATURE'), key=lambda o: o.name)
    report = {"out": args.output}
    # The glTF importer leaves one action assigned (and the others in muted NLA tracks), and the
    # pose it last evaluated written into the transforms. Both exporters bake every bone, and
    # keep a bone that an action does not animate where the current pose has it: start from no
    # action and the file's unanimated transforms, so such bones stand where glTF puts them.
    for o in scene.objects:
        if o.animation_data is not None:
            o.animation_data.action = None
            o.animation_data.use_nla = False
        o.matrix_basis = base[o.name]
        if o.pose is not None:
            for pb in o.pose.bones:
                pb.matrix_basis = base[(o.name, pb.name)]
    bpy.context.view_layer.update()
    if ext == ".fbx":
        t0 = time.perf_counter()
        bpy.ops.export_scene.fbx(
            filepath=out, use_selection=False, object_types={'ARMATURE', 'MESH'},
            global_scale=1.0, apply_unit_scale=True, apply_scale_options='FBX_SCALE_NONE',
            axis_forward='-Z', axis_up='Y', add_leaf_bones=False, use_armature_deform_only=False,
            bake_anim=True, bake_anim_use_all_bones=True, bake_anim_use_nla_strips=False,
            bake_anim_use_all_actions=True, bake_anim_force_startend_keying=True,
            bake_anim_step=1.0, bake_anim_simplify_factor=0.0, use_metadata=False,
            path_mode='AUTO', embed_textures=False)
        report["seconds"] = time.perf_counter() - t0
        report["actions"] = sorted(a.name for a in bpy.data.actions)
    elif ext == ".bvh":
        if len(arms) != 1:
            raise SystemExit(f"blender_export.py: BVH needs one armature, {args.input} has "
                             f"{len(arms)}")
        arm = arms[0]
        actions = sorted(bpy.data.actions, key=lambda a: a.name)
        if args.clip is not None:
            actions = [a for a in actions if a.name == args.clip]
        if not actions:
            raise SystemExit(f"blender_export.py: no action {args.clip!r} in {args.input}")
        action = actions[0]
        ad = arm.animation_data or arm.animation_data_create()
        ad.use_nla = False
        ad.action = action
        slot = next((s for s in action.slots if s.identifier == "OB" + arm.name), None)
        if slot is not None:
            ad.action_slot = slot
        for o in scene.objects:
            o.select_set(o == arm)
        bpy.context.view_layer.objects.active = arm
        start, end = action.frame_range
        start, end = int(math.floor(start)), int(math.ceil(end))
        t0 = time.perf_counter()
        bpy.ops.export_anim.bvh(filepath=out, frame_start=start, frame_end=end,
                                global_scale=1.0, rotate_mode='NATIVE',
                                root_transform_only=False)
        report["seconds"] = time.perf_counter() - t0
        report["clip"] = action.name
        report["frames"] = [start, end]
    else:
        raise SystemExit(f"blender_export.py: unknown output extension {ext!r}")
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:])
