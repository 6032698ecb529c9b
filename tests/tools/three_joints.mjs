// three.js as a real client: the world position of given glTF nodes (a skeleton's joints) at
// given times of given clips, as GLTFLoader and AnimationMixer play them. The counterpart of
// blender_outputs.py, which prints the same for Blender's import.
//
//     node three_joints.mjs JOBS.json
//
// JOBS.json: {"files": [{"path": FILE, "nodes": [glTF node index, ...],
//                        "clips": {CLIP: [seconds, ...], ...}}, ...]}
// Prints one JSON line: {"three": version, "files": [{"path", "names": [three's name per node],
// "height": the largest extent of the nodes' world positions without animation (the nodes' own
// TRS), "still": [[x, y, z] per node] those positions, "clips": {CLIP: [[[x, y, z] per node] per
// time]}, "missing_clips": [...]}]}.
//
// Nodes are found by index through the loader's associations (three.js renames nodes: `.` and
// `:` are removed, spaces become `_`), so the caller pairs them with Blender's by the file's own
// names. Every clip plays alone from the rest: nodes it does not animate stand at their TRS. Each
// sample restarts the action (LoopOnce, clamped) and sets the mixer to the time, so the last
// sample is the clip's end, not its start again (LoopRepeat wraps a time equal to the duration).
// Positions are glTF's world space: Y-up, the file's metres.
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
const quiet = console.warn;
console.warn = () => {};
const load = async (p) => {
  const b = fs.readFileSync(p);
  return new GLTFLoader().parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
};

const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = [];
for (const job of jobs.files) {
  const gltf = await load(job.path);
  const byNode = new Map();
  gltf.scene.traverse((o) => {
    const a = gltf.parser.associations.get(o);
    if (a && a.nodes !== undefined && !byNode.has(a.nodes)) byNode.set(a.nodes, o);
  });
  const objects = job.nodes.map((i) => {
    const o = byNode.get(i);
    if (!o) throw new Error(`${job.path}: three.js made no object of node ${i}`);
    return o;
  });
  const rest = [];
  gltf.scene.traverse((o) => rest.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone()]));
  const toRest = () => {
    for (const [o, p, q, s] of rest) { o.position.copy(p); o.quaternion.copy(q); o.scale.copy(s); }
  };
  const positions = () => {
    gltf.scene.updateMatrixWorld(true);
    return objects.map((o) => o.getWorldPosition(new THREE.Vector3()).toArray());
  };
  toRest();
  const still = positions();
  let height = 0;
  for (let c = 0; c < 3; c++) {
    const v = still.map((p) => p[c]);
    height = Math.max(height, Math.max(...v) - Math.min(...v));
  }
  const clips = {}, missing = [];
  for (const [name, times] of Object.entries(job.clips)) {
    const clip = gltf.animations.find((c) => c.name === name);
    if (!clip) { missing.push(name); continue; }
    toRest();
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    clips[name] = times.map((t) => {
      action.reset();
      mixer.setTime(t);
      return positions();
    });
    mixer.stopAllAction();
    mixer.uncacheRoot(gltf.scene);
  }
  out.push({ path: job.path, names: objects.map((o) => o.name), height, still, clips, missing_clips: missing });
}
console.warn = quiet;
console.log(JSON.stringify({ three: THREE.REVISION, files: out }));
