# Blender 5 (bpy 5.0.1): /work/main/.tools/blender-venv/bin/python scripts/rigify_generated_export.py -- DIR
# Generates Rigify's rig from the Human metarig, skins a mesh to its DEF bones (one small box per
# deform bone, weight 1), poses a few FK controls over 10 frames, and exports the whole rig and
# the deform-only variant. Also dumps every bone: name | parent | head | tail | deform.
import bpy, bmesh, sys
from mathutils import Vector, Euler
out = sys.argv[sys.argv.index("--")+1] if "--" in sys.argv else "/tmp/rigify2"
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.preferences.addon_enable(module="rigify")
bpy.ops.object.armature_human_metarig_add()
meta = bpy.context.active_object
bpy.ops.pose.rigify_generate()
rig = [o for o in bpy.data.objects if o.type == 'ARMATURE' and o is not meta][0]
bpy.data.objects.remove(meta)
for o in list(bpy.data.objects):
    if o.type != 'ARMATURE':
        bpy.data.objects.remove(o)
print("rig", rig.name, len(rig.data.bones), "deform", sum(b.use_deform for b in rig.data.bones))
# mesh: one box per deform bone at the bone's middle, weighted 1 to it
me = bpy.data.meshes.new("body")
bm = bmesh.new()
groups = []
for b in rig.data.bones:
    if not b.use_deform:
        continue
    c = (b.head_local + b.tail_local) / 2
    r = max(0.004, min(0.03, b.length * 0.25))
    vs = [bm.verts.new(c + Vector((x, y, z)) * r) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    for f in ((0,1,3,2),(4,6,7,5),(0,4,5,1),(2,3,7,6),(0,2,6,4),(1,5,7,3)):
        bm.faces.new([vs[i] for i in f])
    groups.append((b.name, len(bm.verts) - 8))
bm.to_mesh(me)
bm.free()
ob = bpy.data.objects.new("body", me)
bpy.context.scene.collection.objects.link(ob)
for name, start in groups:
    g = ob.vertex_groups.new(name=name)
    g.add(list(range(start, start + 8)), 1.0, 'REPLACE')
ob.parent = rig
m = ob.modifiers.new("Armature", 'ARMATURE')
m.object = rig
# action: FK controls over 10 frames
bpy.context.view_layer.objects.active = rig
rig.animation_data_create()
act = bpy.data.actions.new("wave")
rig.animation_data.action = act
sc = bpy.context.scene
sc.frame_start, sc.frame_end = 1, 10
# switch arms and legs to FK so the FK controls drive the DEF bones
for pb in rig.pose.bones:
    for k in ("IK_FK",):
        if k in pb.keys():
            pb[k] = 1.0
poses = {
    "upper_arm_fk.L": Euler((0.0, 0.0, 0.6)), "forearm_fk.L": Euler((0.0, 0.0, 0.8)),
    "upper_arm_fk.R": Euler((0.3, 0.0, -0.4)), "thigh_fk.L": Euler((0.5, 0.0, 0.0)),
    "shin_fk.L": Euler((0.7, 0.0, 0.0)), "thigh_fk.R": Euler((-0.3, 0.0, 0.0)),
    "spine_fk.001": Euler((0.2, 0.0, 0.0)), "neck": Euler((0.0, 0.3, 0.0)),
    "head": Euler((0.2, 0.0, 0.1)), "f_index.01.L": Euler((0.6, 0.0, 0.0)),
    "torso": Euler((0.0, 0.0, 0.3)),
}
for f in (1, 10):
    sc.frame_set(f)
    for n, e in poses.items():
        pb = rig.pose.bones.get(n)
        if pb is None:
            print("no pose bone", n); continue
        pb.rotation_mode = 'XYZ'
        pb.rotation_euler = e if f == 10 else Euler((0, 0, 0))
        pb.keyframe_insert("rotation_euler", frame=f)
    for pb in rig.pose.bones:
        if "IK_FK" in pb.keys():
            pb.keyframe_insert('["IK_FK"]', frame=f)
bpy.ops.object.select_all(action='DESELECT')
bpy.ops.export_scene.gltf(filepath=out + "/rigify_skinned.glb")
bpy.ops.export_scene.gltf(filepath=out + "/rigify_skinned_def.glb", export_def_bones=True)
with open(out + "/rigify_generated.bones.txt", "w") as fh:
    for b in rig.data.bones:
        fh.write("%s | %s | %.4f %.4f %.4f | %.4f %.4f %.4f | deform=%s\n" % (
            b.name, b.parent.name if b.parent else "-", *b.head_local, *b.tail_local, b.use_deform))
print("done")
