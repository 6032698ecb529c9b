"""skelnorm for Blender 5: File › Import › Humanoid, normalized (skelnorm); a sidebar tab that
retargets clips onto the active armature as new actions and normalizes or retargets whole
folders. The work is done by the skelnorm Python package, bundled as a wheel."""

from . import batch, importer, panels, retarget

MODULES = (importer, retarget, batch, panels)


def register():
    for m in MODULES:
        m.register()


def unregister():
    for m in reversed(MODULES):
        m.unregister()
