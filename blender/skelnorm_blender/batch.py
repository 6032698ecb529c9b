"""Batch: normalize a folder (or retarget its clips onto one character) into an output folder,
as `skelnorm batch` does, and open its HTML report (`skelnorm.batch`)."""

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, PointerProperty, StringProperty

from . import common


class SkelnormBatchSettings(bpy.types.PropertyGroup):
    """The Batch panel's settings (one set per scene)."""

    input_dir: StringProperty(name="Folder", subtype='DIR_PATH',
                              description="Every glTF, VRM, VRMA, FBX and BVH file under it")
    output_dir: StringProperty(name="Output", subtype='DIR_PATH',
                               description="Where the outputs go, mirroring the folder's tree")
    mode: EnumProperty(
        name="Do",
        items=(
            ('NORMALIZE', "Normalize", "Normalize every file"),
            ('RETARGET', "Retarget", "Retarget every file's clips onto one character"),
        ),
        default='NORMALIZE',
    )
    retarget_to: StringProperty(name="Character", subtype='FILE_PATH',
                                description="The character every clip is retargeted onto")
    rebind: BoolProperty(name="Bind to the T-pose", default=True,
                         description="skelnorm --rebind: Blender's rest is the T-pose")
    open_report: BoolProperty(name="Open the report", default=True,
                              description="Open the HTML report in the web browser when done")


class SKELNORM_OT_batch(bpy.types.Operator):
    """Normalize a folder, or retarget its clips onto a character, and write an HTML report"""

    bl_idname = "skelnorm.batch"
    bl_label = "Run Batch"
    bl_options = {'REGISTER'}

    @common.guarded
    def execute(self, context):
        s = context.scene.skelnorm_batch
        input_dir = bpy.path.abspath(s.input_dir)
        output_dir = bpy.path.abspath(s.output_dir)
        if not input_dir or not os.path.isdir(input_dir):
            return common.fail(self, f"{input_dir or 'the folder'}: no such folder")
        if not output_dir:
            return common.fail(self, "choose an output folder")
        options = {"rest": {"rebind": s.rebind}}
        if s.mode == 'RETARGET':
            target = bpy.path.abspath(s.retarget_to)
            if not os.path.isfile(target):
                return common.fail(self, f"{target or 'the character'}: no such file")
            options["retarget_to"] = target
        try:
            sk = common.skelnorm()
            report = sk.batch(input_dir, output_dir, **options)
            html = os.path.join(output_dir, "skelnorm-report.html")
            sk.write_html(report, html)
        except ImportError as e:
            return common.fail(self, f"the skelnorm module is not installed: {e}")
        except (OSError, ValueError) as e:
            return common.fail(self, common.error_text(e))
        summary = report["summary"]
        kept = {
            "html": html,
            "summary": {k: summary.get(k, 0) for k in
                        ("files", "ok", "warnings", "failed", "refused", "skipped")},
            "problems": [f"{f['input']}: {f.get('error') or f['status']}"
                         for f in report["files"] if f["status"] in ("failed", "refused")],
        }
        common.keep_report(context, "batch", kept)
        counts = ", ".join(f"{v} {k}" for k, v in kept["summary"].items() if v)
        self.report({'INFO'}, f"skelnorm batch: {counts}; report: {html}")
        if s.open_report and not bpy.app.background:
            bpy.ops.wm.url_open(url="file://" + html)
        return {'FINISHED'}


class SKELNORM_OT_open_report(bpy.types.Operator):
    """Open the last batch's HTML report in the web browser"""

    bl_idname = "skelnorm.open_report"
    bl_label = "Open Report"

    @common.guarded
    def execute(self, context):
        kept = common.kept_report(context, "batch")
        if not kept or not os.path.isfile(kept["html"]):
            return common.fail(self, "no batch report yet")
        bpy.ops.wm.url_open(url="file://" + kept["html"])
        return {'FINISHED'}


CLASSES = (SkelnormBatchSettings, SKELNORM_OT_batch, SKELNORM_OT_open_report)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Scene.skelnorm_batch = PointerProperty(type=SkelnormBatchSettings)


def unregister():
    del bpy.types.Scene.skelnorm_batch
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
