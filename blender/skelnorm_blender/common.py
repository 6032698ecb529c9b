"""What the operators share: the skelnorm module (from the bundled wheel), where reports are kept,
and turning a failure into a Blender report rather than a traceback."""

import json
import tempfile

import bpy

# The scene property under which the last import's and retarget's reports are kept, as JSON text
# (a custom property survives saving the .blend file, so the panels show them after reopening).
REPORT_KEY = "skelnorm_report"


def skelnorm():
    """The skelnorm Python module (installed from the wheel the extension bundles)."""
    import skelnorm as module

    return module


def fail(op, message):
    """Reports `message` as an error of operator `op` and cancels it."""
    op.report({'ERROR'}, message)
    return {'CANCELLED'}


def guarded(execute):
    """An operator's `execute` whose unexpected exceptions become an error report (with the
    exception's text) instead of a Python traceback."""
    import functools

    @functools.wraps(execute)
    def run(op, context):
        try:
            return execute(op, context)
        except Exception as e:  # noqa: BLE001 (every failure becomes a report)
            return fail(op, f"skelnorm: internal error ({type(e).__name__}: {error_text(e)})")

    return run


def error_text(e):
    """What an exception says to a user: skelnorm's own messages name the file and the problem."""
    text = str(e).strip()
    return text or type(e).__name__


def keep_report(context, kind, report):
    """Keeps `report` (a dict) as the scene's last report of `kind` ("import", "retarget",
    "batch") for the panels."""
    scene = context.scene
    kept = json.loads(scene.get(REPORT_KEY, "{}") or "{}")
    kept[kind] = report
    scene[REPORT_KEY] = json.dumps(kept)


def kept_report(context, kind):
    """The scene's last report of `kind`, or None."""
    scene = context.scene
    if scene is None:
        return None
    try:
        return json.loads(scene.get(REPORT_KEY, "{}") or "{}").get(kind)
    except ValueError:
        return None


def work_folder():
    """A fresh temporary folder for intermediate files (removed by the caller)."""
    return tempfile.TemporaryDirectory(prefix="skelnorm-")


def scene_objects():
    return set(bpy.context.scene.objects)


def remove_objects(objects):
    """Removes `objects` and the armature, mesh and action data only they used."""
    for ob in objects:
        data = ob.data
        bpy.data.objects.remove(ob, do_unlink=True)
        if data is not None and data.users == 0:
            if isinstance(data, bpy.types.Armature):
                bpy.data.armatures.remove(data)
            elif isinstance(data, bpy.types.Mesh):
                bpy.data.meshes.remove(data)


def is_armature(ob):
    return ob is not None and ob.type == 'ARMATURE'

