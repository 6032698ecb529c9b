// A VRM player's view of a VRM animation (`.vrma`), against skelnorm's own retarget of the same
// clip (a glTF with the character's raw bones keyed):
//
//     node three_vrma.mjs JOBS.json
//
// JOBS.json: [{"vrm": CHARACTER.vrm, "vrma": CLIP.vrma, "reference": CLIP.glb,
//              "fractions": [0.1, 0.5, ...]}, ...]
//
// The character is loaded as three-vrm's examples load it (GLTFLoader + VRMLoaderPlugin,
// VRMUtils.removeUnnecessaryVertices, combineSkeletons, rotateVRM0); the .vrma with
// VRMAnimationLoaderPlugin and createVRMAnimationClip, played with an AnimationMixer and
// vrm.update(dt), which drives the raw bones from the normalized ones. The reference is loaded
// with GLTFLoader alone and its clip played on its raw bones with an AnimationMixer; for a VRM 0.x
// character its scene is turned as rotateVRM0 turns the character (180° about +Y). At each
// fraction of the clip's duration, the world positions of the hands, feet, head and forearms
// relative to the hips are compared; distances are fractions of the hips' rest height.
//
// Prints one JSON line: [{"vrm", "meta_version", "hips_height", "bones": [names compared],
// "max_error": largest distance between the two, "where": [bone, time], "max_motion": largest
// distance of a compared bone (relative to the hips) from its rest in the reference, over the
// times, "hips_error": largest distance between the two hips positions}].
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin, createVRMAnimationClip } from '@pixiv/three-vrm-animation';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
console.warn = () => {};

const parse = (loader, path) => {
  const b = fs.readFileSync(path);
  return loader.parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
};
const BONES = ['leftHand', 'rightHand', 'leftFoot', 'rightFoot', 'head', 'leftLowerArm', 'rightLowerArm'];
const DT = 1 / 60;

const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = [];
for (const job of jobs) {
  const vrmLoader = new GLTFLoader();
  vrmLoader.register((p) => new VRMLoaderPlugin(p));
  const gltf = await parse(vrmLoader, job.vrm);
  const vrm = gltf.userData.vrm;
  VRMUtils.removeUnnecessaryVertices(gltf.scene);
  VRMUtils.combineSkeletons(gltf.scene);
  VRMUtils.rotateVRM0(vrm);
  const scene = new THREE.Scene();
  scene.add(vrm.scene);
  scene.updateMatrixWorld(true);

  const animLoader = new GLTFLoader();
  animLoader.register((p) => new VRMAnimationLoaderPlugin(p));
  const anim = await parse(animLoader, job.vrma);
  const vrmAnimation = anim.userData.vrmAnimations[0];
  const clip = createVRMAnimationClip(vrmAnimation, vrm);

  const ref = await parse(new GLTFLoader(), job.reference);
  const refScene = new THREE.Scene();
  refScene.add(ref.scene);
  if (vrm.meta.metaVersion === '0') ref.scene.rotation.y = Math.PI;
  refScene.updateMatrixWorld(true);

  const raw = (name) => vrm.humanoid.getRawBoneNode(name);
  const names = BONES.filter((b) => raw(b));
  const refNode = (b) => {
    const o = ref.scene.getObjectByName(raw(b).name);
    if (!o) throw new Error(`${job.reference}: no node ${raw(b).name} (${b})`);
    return o;
  };
  const at = (o) => o.getWorldPosition(new THREE.Vector3());
  const relative = (node, hips) => names.map((b) => at(node(b)).sub(at(hips)));
  const hipsHeight = at(raw('hips')).y;
  const refRest = relative(refNode, refNode('hips'));

  const mixer = new THREE.AnimationMixer(vrm.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  const refClip = ref.animations[0];
  const refMixer = new THREE.AnimationMixer(ref.scene);
  const refAction = refMixer.clipAction(refClip);
  refAction.setLoop(THREE.LoopOnce, 1);
  refAction.clampWhenFinished = true;

  let maxError = 0, where = null, maxMotion = 0, hipsError = 0;
  for (const f of job.fractions) {
    const t = f * clip.duration;
    action.reset().play();
    mixer.setTime(t);
    vrm.update(DT);
    scene.updateMatrixWorld(true);
    refAction.reset().play();
    refMixer.setTime(t);
    refScene.updateMatrixWorld(true);
    const a = relative(raw, raw('hips'));
    const b = relative(refNode, refNode('hips'));
    names.forEach((name, k) => {
      const e = a[k].distanceTo(b[k]) / hipsHeight;
      if (e > maxError) { maxError = e; where = [name, t]; }
      maxMotion = Math.max(maxMotion, b[k].distanceTo(refRest[k]) / hipsHeight);
    });
    hipsError = Math.max(hipsError, at(raw('hips')).distanceTo(at(refNode('hips'))) / hipsHeight);
  }
  out.push({
    vrm: job.vrm,
    meta_version: vrm.meta.metaVersion,
    hips_height: hipsHeight,
    bones: names,
    max_error: maxError,
    where,
    max_motion: maxMotion,
    hips_error: hipsError,
  });
}
console.log(JSON.stringify(out));
