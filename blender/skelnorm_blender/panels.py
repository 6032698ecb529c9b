"""The 3D view sidebar's skelnorm tab: the last import's mapping report, the Retarget panel with
the measures of its last run, and the Batch panel."""

import bpy

from . import common


def lines(layout, title, items, icon='DOT', most=12):
    """A titled list, cut at `most` items with a count of the rest."""
    if not items:
        return
    col = layout.column(align=True)
    col.label(text=f"{title} ({len(items)}):")
    for item in items[:most]:
        col.label(text=str(item), icon=icon)
    if len(items) > most:
        col.label(text=f"… and {len(items) - most} more")


class SidebarPanel:
    """Where every panel of the extension stands: the 3D view's sidebar, tab skelnorm."""

    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "skelnorm"


class SKELNORM_PT_import(SidebarPanel, bpy.types.Panel):
    bl_label = "Import Report"
    bl_idname = "SKELNORM_PT_import"

    def draw(self, context):
        layout = self.layout
        layout.operator("skelnorm.import_normalized", icon='IMPORT')
        report = common.kept_report(context, "import")
        if not report:
            layout.label(text="No import yet")
            return
        layout.label(text=report["input"], icon='FILE')
        for s in report["skeletons"]:
            box = layout.box()
            box.label(text=f"{s['skeleton']}: {s['mapped']} bones mapped to {s['profile']}",
                      icon='ARMATURE_DATA')
            lines(box, "Required bones missing", s["missing_required"], icon='ERROR')
            lines(box, "Profile bones not in the file", s["unmapped_profile"])
            lines(box, "File bones left out, and why", s["unmapped_source"])
            lines(box, "Mapping warnings", s["warnings"], icon='ERROR')
        lines(layout, "Warnings", report["warnings"], icon='ERROR')


class SKELNORM_PT_retarget(SidebarPanel, bpy.types.Panel):
    bl_label = "Retarget"
    bl_idname = "SKELNORM_PT_retarget"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.skelnorm_retarget
        target = context.active_object
        layout.label(
            text=f"Target: {target.name}" if common.is_armature(target)
            else "Target: select an armature",
            icon='ARMATURE_DATA',
        )
        layout.prop(settings, "source_kind", expand=True)
        if settings.source_kind == 'ARMATURE':
            layout.prop(settings, "source_armature")
        else:
            layout.prop(settings, "source_file")
        row = layout.row(align=True)
        row.prop(settings, "plant", toggle=True)
        row.prop(settings, "floor", toggle=True)
        row.prop(settings, "filter", toggle=True)
        layout.prop(settings, "prefix")
        layout.operator("skelnorm.retarget", icon='ACTION')
        report = common.kept_report(context, "retarget")
        if not report:
            return
        for clip in report["clips"]:
            box = layout.box()
            box.label(text=f"{clip['clip']}: {clip['frames']} frames", icon='ACTION')
            seg = clip.get("worst_segment")
            if seg:
                box.label(
                    text=f"Directions ({clip['segments']} segments): mean "
                    f"{clip['segments_mean']:.2f}°, worst {seg['worst_deg']:.2f}° ({seg['bone']})"
                )
            else:
                box.label(text="Directions: no segment measured")
            if clip["not_measured"]:
                names = ", ".join(g["bone"] for g in clip["not_measured"])
                box.label(text=f"Not measured: {names}")
            worst = clip.get("worst")
            if worst:
                box.label(text=f"Worst chain end: {worst['chain']} {worst['end_deg']:.2f}°")
            col = box.column(align=True)
            for c in clip["chains"]:
                if c["measured"] and c["bones_deg"] is not None:
                    col.label(text=f"{c['chain']}: {c['bones_deg']:.2f}°")
                else:
                    col.label(text=f"{c['chain']}: not measured")
            for s in clip["skate"]:
                if s.get("source") is None:
                    why = (s.get("reason") or "not measured").replace("_", " ")
                    box.label(text=f"{s['bone']} skate: {why}")
                elif s.get("target") is None:
                    box.label(text=f"{s['bone']} skate: source {100 * s['source']:.3f}%, target n/a")
                else:
                    box.label(
                        text=f"{s['bone']} skate: {100 * s['target']:.3f}% of leg length a frame "
                        f"(source {100 * s['source']:.3f}%)"
                    )
            legs = clip.get("legs")
            if legs:
                box.label(
                    text=f"Legs with the ops: mean {legs['mean_deg']:.2f}°, worst "
                    f"{legs['worst_deg']:.2f}° (without: {legs['worst_deg_without']:.2f}°)"
                )


class SKELNORM_PT_batch(SidebarPanel, bpy.types.Panel):
    bl_label = "Batch"
    bl_idname = "SKELNORM_PT_batch"

    def draw(self, context):
        layout = self.layout
        s = context.scene.skelnorm_batch
        layout.prop(s, "mode", expand=True)
        layout.prop(s, "input_dir")
        layout.prop(s, "output_dir")
        if s.mode == 'RETARGET':
            layout.prop(s, "retarget_to")
        layout.prop(s, "rebind")
        layout.prop(s, "open_report")
        layout.operator("skelnorm.batch", icon='FILE_FOLDER')
        kept = common.kept_report(context, "batch")
        if not kept:
            return
        box = layout.box()
        box.label(text=", ".join(f"{v} {k}" for k, v in kept["summary"].items() if v))
        lines(box, "Failed or refused", kept["problems"], icon='ERROR')
        box.operator("skelnorm.open_report", icon='URL')


CLASSES = (SKELNORM_PT_import, SKELNORM_PT_retarget, SKELNORM_PT_batch)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)


def unregister():
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
