"""Writes tests/conventions/real/rigify_generated{,_def}_blender5.txt from the bone dump and the
two exports that scripts/rigify_generated_export.py makes (run that with Blender's Python first):

    python3 scripts/rigify_conventions.py DIR tests/conventions/real

DIR holds rigify_generated.bones.txt, rigify_skinned.glb and rigify_skinned_def.glb. Each bone's
parent in the written layouts is checked against the exported file's node tree."""
import json, struct, sys
SRC, OUT = sys.argv[1], sys.argv[2]
def glb_parents(path):
    d=open(path,'rb').read(); n=struct.unpack('<I',d[12:16])[0]; j=json.loads(d[20:20+n])
    nodes=j['nodes']; par={}
    for i,nd in enumerate(nodes):
        for c in nd.get('children',[]): par[c]=i
    joints=set(j['skins'][0]['joints'])
    out={}
    for i,nd in enumerate(nodes):
        if 'mesh' in nd: continue
        out[nd['name']]=(nodes[par[i]]['name'] if i in par else None, i in joints)
    return out
bones=[]
tl={}
for line in open(SRC + '/rigify_generated.bones.txt'):
    c=[x.strip() for x in line.split('|')]
    name,parent=c[0],c[1]
    h=[float(v) for v in c[2].split()]
    tl[name]=[float(v) for v in c[3].split()]
    bones.append((name,None if parent=='-' else parent,h,c[4]=='deform=True'))
deform={b[0] for b in bones if b[3]}
par={b[0]:b[1] for b in bones}
expected={'root':'Root','DEF-spine':'Hips','DEF-spine.001':'Spine','DEF-spine.002':'Chest','DEF-spine.003':'UpperChest','DEF-spine.004':'Neck','DEF-spine.006':'Head','ORG-eye.L':'LeftEye','ORG-eye.R':'RightEye','DEF-jaw':'Jaw'}
for s,S in (('L','Left'),('R','Right')):
    for a,b in (('shoulder','Shoulder'),('upper_arm','UpperArm'),('forearm','LowerArm'),('hand','Hand'),('thigh','UpperLeg'),('shin','LowerLeg'),('foot','Foot'),('toe','Toes')):
        expected['DEF-%s.%s'%(a,s)]=S+b
    for f,F in (('thumb','Thumb'),('f_index','Index'),('f_middle','Middle'),('f_ring','Ring'),('f_pinky','Little')):
        parts=['Metacarpal','Proximal','Distal'] if f=='thumb' else ['Proximal','Intermediate','Distal']
        for k in range(3): expected['DEF-%s.0%d.%s'%(f,k+1,s)]=S+F+parts[k]
def at(h): return 'hips+%g,%g,%g'%(round(h[0],4),round(h[2]-1,4),round(-h[1],4))
def write(fn, rows, header, weightless, not_joints, exp, decide=()):
    parents={p for _,p,_ in rows}
    leaves=[n for n,_,_ in rows if n not in parents and n in tl]
    with open(fn,'w') as f:
        f.write(header)
        f.write('# tails: '+' | '.join('%s = %s'%(n,at(tl[n])) for n in leaves)+'\n')
        if decide: f.write('# names_decide: '+' | '.join(decide)+'\n')
        if weightless: f.write('# weightless: '+' | '.join(weightless)+'\n')
        if not_joints: f.write('# not_joints: '+' | '.join(not_joints)+'\n')
        f.write('name | parent | expected | at\n')
        for n,p,h in rows: f.write('%s | %s | %s | %s\n'%(n,p or '-',exp.get(n,'-'),h))
# whole rig: Blender parents; parentless bones hang from the armature node `rig`
order=[b[0] for b in bones]
# parents before children
placed=set(); rows=[('rig',None,'hips+0,-1,0')]; placed.add('rig')
pending=list(bones)
while pending:
    nxt=[]
    for b in pending:
        p=b[1] or 'rig'
        if p in placed: rows.append((b[0],p,at(b[2]))); placed.add(b[0])
        else: nxt.append(b)
    assert len(nxt)<len(pending); pending=nxt
real=glb_parents(SRC + '/rigify_skinned.glb')
bad=[(n,p,real.get(n)) for n,p,_ in rows if n!='rig' and real.get(n,(None,))[0]!=p]
print('whole: rows',len(rows),'parent mismatches vs glb',len(bad),bad[:5])
write(OUT + '/rigify_generated_blender5.txt', rows,
'''# Blender Rigify rig generated from the Human metarig, whole rig as Blender 5.0's glTF exporter writes it: all 706 bones under the armature node `rig`, a mesh skinned to the DEF- bones
# source: bpy 5.0.1 (Blender 5.0), rigify core add-on: bpy.ops.object.armature_human_metarig_add(), bpy.ops.pose.rigify_generate(), a mesh weighted to every deform bone, bpy.ops.export_scene.gltf() with default options; names, parents, bone heads and use_deform read back from the generated armature (glTF Y up: x, z, -y of Blender), placed as offsets from the canonical hips at (0, 1, 0); bones with no parent in Blender hang from the armature node `rig` in the export (checked against the exported file)
# source: written by scripts/rigify_conventions.py from what scripts/rigify_generated_export.py dumps and exports
# options: a_pose
# note: Rigify's layers: DEF- bones deform (weighted), ORG- bones carry the metarig's bones, MCH- bones are mechanism, unprefixed bones are controls; no bone but the DEF- bones carries weight
# note: the DEF- bones hang from ORG- bones, not from each other: DEF-thigh.L from ORG-spine, DEF-shoulder.L and DEF-upper_arm.L from ORG-shoulder.L, DEF-spine from root; there is no DEF- eye (ORG-eye.L under MCH-eye.L)
# note: names decide: only the DEF-/ORG-/MCH- prefixes tell the deform bones from the ORG- bones and controls at the same places (the mapper's Rigify rule), so scrambled names map the body differently\n# note: DEF-spine.005 is the upper neck (left unmapped as in the metarig); DEF-upper_arm.L.001, DEF-forearm.L.001, DEF-thigh.L.001, DEF-shin.L.001 are twist halves
''', [n for n,_,_ in rows if n!='rig' and n not in deform], ['rig'], expected, [v for k,v in expected.items() if v not in ('Root','LeftEye','RightEye','Jaw')])
# deform-only: each DEF bone hangs from its nearest DEF ancestor, else from `rig`
def near(n):
    p=par[n]
    while p is not None and p not in deform: p=par[p]
    return p
rows=[('rig',None,'hips+0,-1,0')]
for b in bones:
    if b[3]: rows.append((b[0], near(b[0]) or 'rig', at(b[2])))
real=glb_parents(SRC + '/rigify_skinned_def.glb')
bad=[(n,p,real.get(n)) for n,p,_ in rows if n!='rig' and real.get(n,(None,))[0]!=p]
print('def: rows',len(rows),'parent mismatches vs glb',len(bad),bad[:5])
exp2={k:v for k,v in expected.items() if k.startswith('DEF-')}
exp2['rig']='Root'
write(OUT + '/rigify_generated_def_blender5.txt', rows,
'''# Blender Rigify rig generated from the Human metarig, exported by Blender 5.0's glTF exporter with "deform bones only" (export_def_bones): the 160 DEF- bones under the armature node `rig`, a mesh skinned to them
# source: bpy 5.0.1 (Blender 5.0), rigify core add-on: bpy.ops.object.armature_human_metarig_add(), bpy.ops.pose.rigify_generate(), a mesh weighted to every deform bone, bpy.ops.export_scene.gltf(export_def_bones=True); names, parents, bone heads and use_deform read back from the generated armature (glTF Y up: x, z, -y of Blender), placed as offsets from the canonical hips at (0, 1, 0); each DEF- bone hangs from its nearest DEF- ancestor, else from the armature node `rig`, as in the exported file (checked against it)
# source: written by scripts/rigify_conventions.py from what scripts/rigify_generated_export.py dumps and exports
# options: a_pose
# note: each leaf's +Y points at its Blender tail (tails), as Blender's glTF export keeps bone axes\n# note: the hierarchy comes in pieces: DEF-spine's chain, each DEF-pelvis, each DEF-thigh's leg, each DEF-shoulder, each DEF-upper_arm's arm with its hand and fingers, each face bone and DEF-breast hang straight from `rig`
# note: no eye bones (Rigify's eyes are ORG- and MCH- bones); Root is the armature node `rig` at the floor, the top of every piece
''', [], ['rig'], exp2)
