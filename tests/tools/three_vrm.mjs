// three-vrm's view of a VRM (issue 40): load IN and OUT as three-vrm's examples load a model
// (GLTFLoader with VRMLoaderPlugin, then VRMUtils.rotateVRM0(vrm), which turns a VRM 0.x scene 180°
// about +Y), and compare what a user sees:
// - facing: the direction the character faces at rest, from its humanoid's raw upper legs
//   (left − right) × up, for each file;
// - a test pose set on the normalized humanoid bones (as user code and VRMA players drive a VRM),
//   applied by vrm.update();
// - each VRMA given after the two files, played with three-vrm-animation
//   (VRMAnimationLoaderPlugin, createVRMAnimationClip, an AnimationMixer and vrm.update, as its
//   example does) at up to 24 times;
// where the hands, feet, head, forearms (lower arms) and upper legs stand relative to the hips, in
// units of the hips' rest height; and the spring-bone colliders' centres and the look-at origin
// halfway through the file's first glTF clip (at rest without one). Prints one JSON line with the largest difference of each.
//
// Usage (an ES module: run it from a folder whose node_modules has three, @pixiv/three-vrm and
// @pixiv/three-vrm-animation, or copy it next to one):
//   node three_vrm.mjs IN.vrm OUT.vrm [ANIM.vrma ...] [--clip]
// With --clip, OUT is a retarget of each ANIM onto IN: OUT's last glTF animation, played on its raw
// bones with an AnimationMixer (no vrm.update, which would drive them from the normalized bones),
// is compared with ANIM played by three-vrm-animation on IN at the same times ("clip" in "vrma").
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin, createVRMAnimationClip } from '@pixiv/three-vrm-animation';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
// three-vrm warns on stdout-unfriendly console.warn for things like missing textures; keep stdout JSON only
console.warn = () => {};

const parse = async (path) => {
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
  const b = fs.readFileSync(path);
  return loader.parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
};

// as three-vrm's examples: the VRM from userData, VRM 0.x turned to face +Z
const loadVrm = async (path) => {
  const gltf = await parse(path);
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error(`${path}: three-vrm found no VRM`);
  VRMUtils.rotateVRM0(vrm);
  vrm.scene.updateMatrixWorld(true);
  vrm.animations = gltf.animations;
  return vrm;
};

const MEASURED = ['leftHand', 'rightHand', 'leftFoot', 'rightFoot', 'head', 'leftLowerArm', 'rightLowerArm',
  'leftUpperLeg', 'rightUpperLeg'];

const world = (vrm, name) => {
  const node = vrm.humanoid.getRawBoneNode(name);
  if (!node) return null;
  return new THREE.Vector3().setFromMatrixPosition(node.matrixWorld);
};

// positions relative to the hips in units of the hips' rest height
const measure = (vrm, height) => {
  vrm.scene.updateMatrixWorld(true);
  const hips = world(vrm, 'hips');
  const out = {};
  for (const n of MEASURED) {
    const p = world(vrm, n);
    if (p) out[n] = p.sub(hips).divideScalar(height);
  }
  return out;
};

const restPose = (vrm) => {
  vrm.humanoid.resetNormalizedPose();
  vrm.update(0);
  vrm.scene.updateMatrixWorld(true);
};

const facing = (vrm) => {
  restPose(vrm);
  const left = world(vrm, 'leftUpperLeg').sub(world(vrm, 'rightUpperLeg'));
  return new THREE.Vector3().crossVectors(left, new THREE.Vector3(0, 1, 0)).normalize();
};

// a pose on the normalized bones (VRM 1.0's convention: the character faces +Z, its left is +X)
const TEST_POSE = {
  hips: [0, 0.3, 0],
  spine: [0.2, 0, 0.1],
  neck: [0, 0.4, 0],
  head: [0.1, 0, 0.2],
  leftUpperArm: [0.2, 0.3, 0.9],
  leftLowerArm: [0, -1.0, 0],
  rightUpperArm: [0.1, 0.2, -0.5],
  rightLowerArm: [0, 0.7, 0],
  leftUpperLeg: [-0.6, 0, 0.1],
  leftLowerLeg: [0.8, 0, 0],
  rightUpperLeg: [0.3, 0.2, 0],
  rightLowerLeg: [0.4, 0, 0],
};

const posed = (vrm, height) => {
  restPose(vrm);
  for (const [name, e] of Object.entries(TEST_POSE)) {
    const node = vrm.humanoid.getNormalizedBoneNode(name);
    if (node) node.quaternion.setFromEuler(new THREE.Euler(e[0], e[1], e[2]));
  }
  vrm.update(0);
  return measure(vrm, height);
};

// `anim` played with three-vrm-animation, or (`raw`) a glTF clip of the file on its raw bones
const played = (vrm, anim, height, raw = null) => {
  restPose(vrm);
  const clip = raw ?? createVRMAnimationClip(anim, vrm);
  const mixer = new THREE.AnimationMixer(vrm.scene);
  mixer.clipAction(clip).play();
  const n = Math.max(2, Math.min(24, Math.round(clip.duration * 30) + 1));
  const frames = [];
  for (let k = 0; k < n; k++) {
    const t = (clip.duration * k) / (n - 1);
    mixer.setTime(t);
    if (!raw) vrm.update(0);
    frames.push([t, measure(vrm, height)]);
  }
  mixer.stopAllAction();
  mixer.uncacheRoot(vrm.scene);
  return frames;
};

const worst = (a, b, where) => {
  let w = { error: 0, where: null };
  for (const n of Object.keys(a)) {
    if (!b[n]) continue;
    const e = a[n].distanceTo(b[n]);
    if (e > w.error) w = { error: e, where: { ...where, bone: n } };
  }
  for (const n of Object.keys(a)) if (!b[n]) w = { error: Infinity, where: { ...where, bone: n, missing: true } };
  return w;
};

const args = process.argv.slice(2);
const clipToo = args.includes('--clip');
const [inPath, outPath, ...anims] = args.filter((a) => a !== '--clip');
const A = await loadVrm(inPath), B = await loadVrm(outPath);
const result = {
  in: inPath,
  out: outPath,
  meta_version: [A.meta?.metaVersion ?? null, B.meta?.metaVersion ?? null],
  facing_in: facing(A).toArray().map((v) => +v.toFixed(4)),
  facing_out: facing(B).toArray().map((v) => +v.toFixed(4)),
};
const heightOf = (vrm) => { restPose(vrm); return world(vrm, 'hips').y; };
const ha = heightOf(A), hb = heightOf(B);
result.hips_height = [ha, hb];
// Where the spring-bone colliders' centres and the look-at origin stand at rest, relative to the
// hips (in hips heights): three-vrm hangs each collider under its node, its shape's offset in the
// node's space, and takes the look-at origin in the head bone's space.
// Played from the file's first glTF clip on the raw bones where it has one (a normalized rest
// moves the limbs by design; every animated frame must look the same), else at rest.
const attached = (vrm, height) => {
  restPose(vrm);
  const clip = vrm.animations[0];
  let mixer = null;
  if (clip) {
    mixer = new THREE.AnimationMixer(vrm.scene);
    mixer.clipAction(clip).play();
    mixer.setTime(clip.duration / 2);
    vrm.scene.updateMatrixWorld(true);
  }
  const hips = world(vrm, 'hips');
  const out = {};
  let k = 0;
  vrm.scene.traverse((o) => {
    if (o.shape && o.shape.offset && o.parent) {
      const at = o.shape.offset.clone().applyMatrix4(o.matrixWorld);
      out[`collider ${k++}`] = at.sub(hips).divideScalar(height);
    }
  });
  if (vrm.lookAt) out['look-at origin'] = vrm.lookAt.getLookAtWorldPosition(new THREE.Vector3()).sub(hips).divideScalar(height);
  if (mixer) {
    mixer.stopAllAction();
    mixer.uncacheRoot(vrm.scene);
  }
  return out;
};
const att = worst(attached(A, ha), attached(B, hb), { what: A.animations[0] ? `${A.animations[0].name} halfway` : 'at rest' });
result.attached = Object.keys(attached(A, ha));
result.attached_max = att.error;
result.attached_where = att.where;
const pose = worst(posed(A, ha), posed(B, hb), { what: 'test pose' });
result.pose_max = pose.error;
result.pose_where = pose.where;
result.vrma = [];
for (const path of anims) {
  const gltf = await parse(path);
  const anim = gltf.userData.vrmAnimations?.[0];
  if (!anim) throw new Error(`${path}: three-vrm-animation found no VRM animation`);
  const fa = played(A, anim, ha), fb = played(B, anim, hb);
  let w = { error: 0, where: null };
  fa.forEach(([t, m], i) => {
    const e = worst(m, fb[i][1], { what: path, t: +t.toFixed(3) });
    if (e.error > w.error) w = e;
  });
  const entry = { path, frames: fa.length, max: w.error, where: w.where };
  if (clipToo) {
    const clip = B.animations[B.animations.length - 1];
    if (!clip) throw new Error(`${outPath}: no glTF animation to compare with ${path}`);
    const fc = played(B, null, hb, clip);
    let c = { error: 0, where: null };
    fc.forEach(([t, m], i) => {
      const e = worst(fa[Math.min(i, fa.length - 1)][1], m, { what: clip.name, t: +t.toFixed(3) });
      if (e.error > c.error) c = e;
    });
    entry.clip = { name: clip.name, duration: [fa.length ? fa[fa.length - 1][0] : 0, clip.duration], max: c.error, where: c.where };
  }
  result.vrma.push(entry);
}
console.log(JSON.stringify(result));
