"""File › Import › Humanoid, normalized (skelnorm): the file is normalized by skelnorm into a
temporary glTF (T-pose facing +Z, bones named by the profile, the bind baked into the T-pose so
that Blender's rest is the T-pose), which Blender's own glTF importer then reads with its
defaults. The mapping report is kept on the scene for the sidebar panel."""

import os

import bpy
from bpy.props import BoolProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from . import common

EXTENSIONS = (".gltf", ".glb", ".vrm", ".vrma", ".fbx", ".bvh")


def messages(warnings):
    """The sentences of a report's warnings (each a dict with its code and message)."""
    return [w.get("message", str(w)) if isinstance(w, dict) else str(w) for w in warnings]


def why_left_out(names, parents, mapped):
    """For each bone of a written skeleton that no profile bone took (its name not in `mapped`,
    the profile names), why, from where it hangs: an end bone past a mapped one, a bone between
    two mapped ones (a twist or helper bone), or a bone under one the profile has nothing for."""
    children = {i: [] for i in range(len(names))}
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    out = {}
    for i, name in enumerate(names):
        if name in mapped:
            continue
        parent = names[parents[i]] if parents[i] >= 0 else None
        below = [names[c] for c in children[i] if names[c] in mapped]
        if parent is None:
            out[name] = "a root above the skeleton (the profile's Root takes only one)"
        elif not children[i]:
            out[name] = f"an end bone past {parent}: the profile has no bone there"
        elif below:
            out[name] = (f"between {parent} and {below[0]}: a twist or helper bone the "
                         "profile has no place for")
        else:
            out[name] = f"under {parent}, with nothing mapped below it: the profile has no bone there"
    return out


def mapping_summary(report, written=None):
    """What the panel shows of a `normalize` report: per skeleton, the bones mapped, the profile
    bones left unmapped, the file's bones left out and why (from `written`, the normalized file
    as `skelnorm.load` reads it, when given), and the warnings."""
    entry = report["files"][0]
    skeletons = []
    for k, s in enumerate((entry.get("normalize") or {}).get("skeletons", [])):
        mapping = s.get("mapping") or {}
        bones = mapping.get("bones") or {}
        left_out = mapping.get("unmapped_source", [])
        reasons = {}
        index = s.get("index", k)
        if written is not None and index < len(written.skeletons):
            sk = written.skeletons[index]
            # Mapped bones carry their profile name, or their own without renaming.
            mapped = set(bones) | {b.get("source") for b in bones.values() if isinstance(b, dict)}
            reasons = why_left_out(sk.names, [int(p) for p in sk.parents], mapped)
            # A bone moved aside for a profile name (`Neck` → `Neck_2`) is found by its new one.
            for moved in (s.get("rename") or {}).get("moved_aside", []):
                if moved.get("to") in reasons:
                    reasons[moved["from"]] = (f"renamed {moved['to']} (its name is a profile "
                                              f"bone's); " + reasons.pop(moved["to"]))
        skeletons.append(
            {
                "skeleton": s.get("skeleton", ""),
                "profile": mapping.get("profile", ""),
                "mapped": len(bones),
                "unmapped_profile": mapping.get("unmapped_profile", []),
                "unmapped_source": [f"{b}: {reasons[b]}" if b in reasons else b
                                    for b in left_out],
                "missing_required": mapping.get("missing_required", []),
                "warnings": messages(mapping.get("warnings", [])),
            }
        )
    return {
        "input": entry.get("input", ""),
        "status": entry.get("status", ""),
        "skeletons": skeletons,
        "warnings": messages(entry.get("warnings", [])),
    }


class SKELNORM_OT_import_normalized(bpy.types.Operator, ImportHelper):
    """Import a humanoid character or clip normalized by skelnorm: T-pose facing +Z, bones
    named by the humanoid profile"""

    bl_idname = "skelnorm.import_normalized"
    bl_label = "Import Humanoid, Normalized"
    bl_options = {'REGISTER', 'UNDO', 'PRESET'}

    filter_glob: StringProperty(default="*.gltf;*.glb;*.vrm;*.vrma;*.fbx;*.bvh", options={'HIDDEN'})
    rebind: BoolProperty(
        name="Bind to the T-pose",
        description="Bake the meshes into the normalized T-pose, so that Blender's rest (built "
        "from the bind) is the T-pose (skelnorm --rebind)",
        default=True,
    )
    fix_rest: BoolProperty(
        name="Fix the rest",
        description="Turn the rest into a T-pose facing +Z, each bone's +Y toward its child",
        default=True,
    )
    strip_tracks: BoolProperty(
        name="Strip tracks",
        description="Remove translation and scale keys that only Root and Hips need",
        default=True,
    )
    rename_bones: BoolProperty(
        name="Rename bones",
        description="Name the bones by the humanoid profile (Hips, Spine, LeftUpperArm…)",
        default=True,
    )
    allow_partial: BoolProperty(
        name="Allow a partial map",
        description="Normalize even when required bones are missing from the map",
        default=False,
    )
    bvh_scale: FloatProperty(
        name="BVH scale",
        description="Metres per BVH unit (0: found from the skeleton's height)",
        default=0.0,
        min=0.0,
    )

    def draw(self, context):
        layout = self.layout
        for name in ("rebind", "fix_rest", "strip_tracks", "rename_bones", "allow_partial"):
            layout.prop(self, name)
        if self.filepath.lower().endswith(".bvh"):
            layout.prop(self, "bvh_scale")

    @common.guarded
    def execute(self, context):
        path = bpy.path.abspath(self.filepath)
        if not os.path.isfile(path):
            return common.fail(self, f"{path}: no such file")
        if not path.lower().endswith(EXTENSIONS):
            return common.fail(
                self, f"{path}: not a file skelnorm reads (.gltf, .glb, .vrm, .vrma, .fbx, .bvh)"
            )
        try:
            sk = common.skelnorm()
        except ImportError as e:
            return common.fail(self, f"the skelnorm module is not installed: {e}")
        stem = os.path.splitext(os.path.basename(path))[0]
        with common.work_folder() as tmp:
            # VRM stays VRM (its humanoid extension is written with the new names); the rest
            # becomes GLB. Blender's importer reads both.
            out = os.path.join(tmp, stem + (".vrm" if path.lower().endswith(".vrm") else ".glb"))
            try:
                report = sk.normalize(
                    path,
                    out,
                    bvh_scale=self.bvh_scale or None,
                    normalize={
                        "allow_partial": self.allow_partial,
                        "fix_rest": self.fix_rest,
                        "strip_tracks": self.strip_tracks,
                        "rename_bones": self.rename_bones,
                    },
                    rest={"rebind": self.rebind and self.fix_rest},
                )
            except (OSError, ValueError) as e:
                return common.fail(self, common.error_text(e))
            try:
                written = sk.load(out)
            except (OSError, ValueError):
                written = None
            before = common.scene_objects()
            try:
                result = bpy.ops.import_scene.gltf(filepath=out)
            except RuntimeError as e:
                return common.fail(self, f"Blender's glTF importer failed on skelnorm's output: {e}")
            if result != {'FINISHED'}:
                return common.fail(self, "Blender's glTF importer did not finish")
        added = common.scene_objects() - before
        for ob in added:
            if common.is_armature(ob):
                ob["skelnorm_source"] = path
        summary = mapping_summary(report, written)
        common.keep_report(context, "import", summary)
        mapped = ", ".join(f"{s['skeleton']}: {s['mapped']} bones" for s in summary["skeletons"])
        self.report({'INFO'}, f"skelnorm: {os.path.basename(path)} normalized ({mapped})")
        for w in summary["warnings"]:
            self.report({'WARNING'}, w)
        return {'FINISHED'}


def menu_import(self, context):
    self.layout.operator(SKELNORM_OT_import_normalized.bl_idname,
                         text="Humanoid, normalized (skelnorm)")


CLASSES = (SKELNORM_OT_import_normalized,)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
