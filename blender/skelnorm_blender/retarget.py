"""Retargeting onto the active armature (the sidebar's Retarget panel, `skelnorm.retarget`).

The active armature is exported by Blender's glTF exporter (its bones, no mesh, no animation);
the source is a file, or another armature exported with its active action. skelnorm retargets
every clip of the source onto the exported target (`skelnorm.retarget`, output as the target
came), Blender's glTF importer reads the result into a scratch collection, and each new clip is
baked onto the active armature as a new action: at every frame, each bone gets the armature-space
pose of its namesake in the imported copy, so the rests of the two (the exporter and importer
may round bone orientations differently) do not enter. The scratch objects are removed."""

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, PointerProperty, StringProperty
from mathutils import Matrix
from . import common


def armature_poll(_self, ob):
    return common.is_armature(ob)


class SkelnormRetargetSettings(bpy.types.PropertyGroup):
    """The Retarget panel's settings (one set per scene)."""

    source_kind: EnumProperty(
        name="Source",
        items=(
            ('ARMATURE', "Armature", "Another armature, with its active action"),
            ('FILE', "File", "A glTF, VRM, VRMA, FBX or BVH file: every clip it holds"),
        ),
        default='FILE',
    )
    source_armature: PointerProperty(name="Armature", type=bpy.types.Object, poll=armature_poll)
    source_file: StringProperty(name="File", subtype='FILE_PATH')
    plant: BoolProperty(name="Plant feet", description="Hold planted feet through the leg IK")
    floor: BoolProperty(name="Floor", description="Feet and hips never below the floor")
    filter: BoolProperty(name="Filter", description="One-Euro filter of every driven bone")
    prefix: StringProperty(name="Prefix", description="Put before each new action's name")


def select_only(context, ob):
    for o in context.view_layer.objects:
        o.select_set(False)
    ob.select_set(True)
    context.view_layer.objects.active = ob


def export_armature(context, ob, path, animation):
    """Writes armature `ob` (its bones; with its active action when `animation`) to GLB `path`."""
    select_only(context, ob)
    options = dict(
        filepath=path,
        export_format='GLB',
        use_selection=True,
        export_animations=animation,
        export_skins=True,
        export_apply=False,
    )
    if animation:
        options["export_animation_mode"] = 'ACTIVE_ACTIONS'
    result = bpy.ops.export_scene.gltf(**options)
    if result != {'FINISHED'}:
        raise RuntimeError(f"Blender's glTF exporter did not finish on {ob.name}")


def rest_relative(bone):
    """The bone's rest relative to its parent's (armature space for a root bone)."""
    if bone.parent is None:
        return bone.matrix_local.copy()
    return bone.parent.matrix_local.inverted() @ bone.matrix_local


def bake(context, copy, target, action_name, frames):
    """A new action on `target` in which each bone, at every frame of `frames`, deforms as the
    bone of the same name in armature `copy` (playing its action) does: the same pose times
    inverse rest, in world space, whatever the two rests are."""
    scene = context.scene
    to_target = target.matrix_world.inverted() @ copy.matrix_world
    from_target = to_target.inverted()
    bones = [b for b in target.pose.bones if b.name in copy.pose.bones]
    # Parents before children, so a child's basis is taken relative to its parent's pose.
    order = sorted(bones, key=lambda b: len(b.parent_recursive))
    if target.animation_data is None:
        target.animation_data_create()
    previous = target.animation_data.action
    action = bpy.data.actions.new(action_name)
    target.animation_data.action = action
    for b in order:
        b.rotation_mode = 'QUATERNION'
    # What does not change from frame to frame, per bone: the copy's inverse rest, this rest
    # brought into the copy's space, and this rest relative to its parent's, inverted.
    theirs_inv = {b.name: copy.pose.bones[b.name].bone.matrix_local.inverted() for b in order}
    mine = {b.name: from_target @ b.bone.matrix_local for b in order}
    rel_inv = {b.name: rest_relative(b.bone).inverted() for b in order}
    for frame in frames:
        scene.frame_set(frame)
        posed = {
            b.name: to_target @ copy.pose.bones[b.name].matrix @ theirs_inv[b.name] @ mine[b.name]
            for b in order
        }
        for b in order:
            if b.parent is None:
                parent_pose = Matrix()
            else:
                # A parent with no namesake in the copy stays at its rest.
                parent_pose = posed.get(b.parent.name, b.parent.bone.matrix_local)
            basis = rel_inv[b.name] @ parent_pose.inverted() @ posed[b.name]
            loc, rot, scale = basis.decompose()
            b.location, b.rotation_quaternion, b.scale = loc, rot, scale
            for path in ("location", "rotation_quaternion", "scale"):
                b.keyframe_insert(path, frame=frame, group=b.name)
    if previous is not None and previous != action:
        # Leave the armature playing what it played; the new action is ready to be chosen.
        target.animation_data.action = previous
    return action


def clip_frames(action):
    start, end = action.frame_range
    return range(int(round(start)), int(round(end)) + 1)


def ops_settings(settings):
    ops = []
    if settings.plant:
        ops.append({"Plant": {}})
    if settings.floor:
        ops.append({"Floor": {}})
    if settings.filter:
        ops.append({"Filter": {}})
    return ops


def measures(report):
    """What the panel shows of a retarget report (`skelnorm.retarget`'s): per clip, math.md's
    directions per segment on the clip written (mean, worst and where, the segments not
    measured), each chain's, the feet's skate in leg lengths over the source's contacts, the
    ops' leg cost, and what was not measured."""
    out = []
    for clip in report.get("clips", []):
        m = clip.get("measured") or {}
        chains = []
        for c in m.get("chains", []):
            chains.append(
                {
                    "chain": c.get("chain", ""),
                    "measured": bool(c.get("measured")),
                    "bones_deg": c.get("bones_deg"),
                }
            )
        segments = m.get("segments", [])
        worst_segment = max(segments, key=lambda g: g["worst_deg"], default=None)
        out.append(
            {
                "clip": clip.get("clip", ""),
                "frames": clip.get("frames", 0),
                "worst": m.get("worst_end"),
                "segments": len(segments),
                "segments_mean": (
                    sum(g["mean_deg"] for g in segments) / len(segments) if segments else None
                ),
                "worst_segment": worst_segment,
                "not_measured": m.get("segments_not_measured", []),
                "chains": chains,
                "skate": m.get("skate", []),
                "legs": (m.get("ops") or {}).get("legs"),
            }
        )
    return {"clips": out}


class SKELNORM_OT_retarget(bpy.types.Operator):
    """Retarget a source's clips onto the active armature, as new actions"""

    bl_idname = "skelnorm.retarget"
    bl_label = "Retarget onto Active Armature"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return common.is_armature(context.active_object)

    @common.guarded
    def execute(self, context):
        settings = context.scene.skelnorm_retarget
        target = context.active_object
        if not common.is_armature(target):
            return common.fail(self, "the active object is not an armature")
        if settings.source_kind == 'ARMATURE':
            source = settings.source_armature
            if not common.is_armature(source):
                return common.fail(self, "choose a source armature")
            if source == target:
                return common.fail(self, "the source armature is the active armature")
            if source.animation_data is None or source.animation_data.action is None:
                return common.fail(self, f"the source armature {source.name} has no action")
        else:
            source_file = bpy.path.abspath(settings.source_file)
            if not os.path.isfile(source_file):
                return common.fail(self, f"{source_file or 'the source file'}: no such file")
        try:
            sk = common.skelnorm()
        except ImportError as e:
            return common.fail(self, f"the skelnorm module is not installed: {e}")
        if context.mode != 'OBJECT':
            bpy.ops.object.mode_set(mode='OBJECT')
        selected = [o for o in context.view_layer.objects if o.select_get()]
        frame = context.scene.frame_current
        made = []
        with common.work_folder() as tmp:
            try:
                target_glb = os.path.join(tmp, "target.glb")
                export_armature(context, target, target_glb, animation=False)
                if settings.source_kind == 'ARMATURE':
                    source_file = os.path.join(tmp, "source.glb")
                    export_armature(context, settings.source_armature, source_file, animation=True)
                out = os.path.join(tmp, "retargeted.glb")
                ops = ops_settings(settings)
                _, report = sk.retarget(
                    source_file,
                    target_glb,
                    out,
                    **({"retarget": {"ops": ops}} if ops else {}),
                )
                before = common.scene_objects()
                actions_before = set(bpy.data.actions)
                if bpy.ops.import_scene.gltf(filepath=out) != {'FINISHED'}:
                    raise RuntimeError("Blender's glTF importer did not finish on the retarget")
                scratch = common.scene_objects() - before
                copies = [o for o in scratch if common.is_armature(o)]
                if len(copies) != 1:
                    raise RuntimeError(f"the retarget imported {len(copies)} armatures, not one")
                copy = copies[0]
                new_clips = [c["clip"] for c in report["clips"]]
                imported = {a.name: a for a in set(bpy.data.actions) - actions_before}
                for a in imported.values():
                    # Out of the way of the names the new actions take.
                    a.name = "skelnorm scratch " + a.name
                try:
                    for name in new_clips:
                        action = find_action(imported, name)
                        if action is None:
                            raise RuntimeError(f"clip {name} is missing from the imported retarget")
                        if copy.animation_data is None:
                            copy.animation_data_create()
                        copy.animation_data.action = action
                        made.append(bake(context, copy, target, settings.prefix + name,
                                         clip_frames(action)))
                finally:
                    common.remove_objects(scratch)
                    for a in imported.values():
                        bpy.data.actions.remove(a)
            except (OSError, ValueError, RuntimeError) as e:
                return common.fail(self, common.error_text(e))
            finally:
                for o in context.view_layer.objects:
                    o.select_set(o in selected)
                context.view_layer.objects.active = target
                context.scene.frame_set(frame)
        summary = measures(report)
        summary["actions"] = [a.name for a in made]
        common.keep_report(context, "retarget", summary)
        self.report({'INFO'}, f"skelnorm: {len(made)} new action(s) on {target.name}: "
                    + ", ".join(a.name for a in made))
        return {'FINISHED'}


def find_action(imported, clip):
    """The action Blender's importer made of clip `clip` (named after the clip, possibly with
    the armature's name after it)."""
    if clip in imported:
        return imported[clip]
    for name, action in imported.items():
        if name.startswith(clip + "_") or name.startswith(clip + "."):
            return action
    return None


CLASSES = (SkelnormRetargetSettings, SKELNORM_OT_retarget)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Scene.skelnorm_retarget = PointerProperty(type=SkelnormRetargetSettings)


def unregister():
    del bpy.types.Scene.skelnorm_retarget
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
