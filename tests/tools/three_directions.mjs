// An independent recomputation of math.md's direction error from the files, as three.js plays
// them: a source glTF/GLB and the written output of a retarget, each loaded by GLTFLoader and
// played by AnimationMixer; for each given segment (a joint → the mean of its tail joints, given
// as glTF node indices on each side), the angle between the two sides' world directions at every
// frame. Used by tests/retarget_directions.rs, which compares it with the report's `segments`.
//
//     node three_directions.mjs JOB.json
//
// JOB.json: {"fps": 30, "source": {"path": FILE, "clip": NAME}, "target": {"path": FILE,
//            "clip": NAME}, "segments": [{"bone": NAME, "source": [joint, [tail, ...]],
//            "target": [joint, [tail, ...]]}, ...]}
// Frames: t = k / fps for k = 0 … ceil(duration · fps), clamped to the duration, the longer of
// the two clips' (as the report samples them). Both files must face the same way in their world
// (glTF's +Z forward, Y up): directions are compared in world space, unturned.
// Prints one JSON line: {"three": version, "frames": N, "segments": [{"bone", "mean_deg",
// "worst_deg", "worst_frame", "deg": [per frame]}]}.
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
console.warn = () => {};
const load = async (p) => {
  const b = fs.readFileSync(p);
  return new GLTFLoader().parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
};

// One side: its scene, its clip's action, and its objects by glTF node index.
const side = async ({ path, clip }) => {
  const gltf = await load(path);
  const byNode = new Map();
  gltf.scene.traverse((o) => {
    const a = gltf.parser.associations.get(o);
    if (a && a.nodes !== undefined && !byNode.has(a.nodes)) byNode.set(a.nodes, o);
  });
  const c = gltf.animations.find((a) => a.name === clip);
  if (!c) throw new Error(`${path}: no clip ${clip} (has ${gltf.animations.map((a) => a.name)})`);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(c);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const node = (i) => {
    const o = byNode.get(i);
    if (!o) throw new Error(`${path}: three.js made no object of node ${i}`);
    return o;
  };
  return {
    duration: c.duration,
    // World positions of `nodes` at time `t`.
    at(t, nodes) {
      action.reset();
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      return nodes.map((i) => node(i).getWorldPosition(new THREE.Vector3()));
    },
  };
};

// Direction joint → mean of tails, in doubles.
const dir = (p, joint, tails) => {
  const m = [0, 0, 0];
  for (const t of tails) { m[0] += p.get(t).x; m[1] += p.get(t).y; m[2] += p.get(t).z; }
  const j = p.get(joint);
  return [m[0] / tails.length - j.x, m[1] / tails.length - j.y, m[2] / tails.length - j.z];
};
const angle = (a, b) => {
  const c = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const cross = Math.hypot(...c);
  const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return (Math.atan2(cross, dot) * 180) / Math.PI;
};

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const [s, t] = [await side(job.source), await side(job.target)];
const duration = Math.max(s.duration, t.duration);
const frames = Math.ceil(duration * job.fps) + 1;
const nodes = (k) => [...new Set(job.segments.flatMap((g) => [g[k][0], ...g[k][1]]))];
const [sn, tn] = [nodes('source'), nodes('target')];
const deg = job.segments.map(() => []);
for (let f = 0; f < frames; f++) {
  const time = Math.min(f / job.fps, duration);
  const ps = new Map(s.at(time, sn).map((p, i) => [sn[i], p]));
  const pt = new Map(t.at(time, tn).map((p, i) => [tn[i], p]));
  job.segments.forEach((g, k) => {
    deg[k].push(angle(dir(ps, g.source[0], g.source[1]), dir(pt, g.target[0], g.target[1])));
  });
}
const segments = job.segments.map((g, k) => {
  let worst = 0, at = 0;
  deg[k].forEach((d, f) => { if (d > worst) { worst = d; at = f; } });
  const mean = deg[k].reduce((a, b) => a + b, 0) / deg[k].length;
  return { bone: g.bone, mean_deg: mean, worst_deg: worst, worst_frame: at, deg: deg[k] };
});
console.log(JSON.stringify({ three: THREE.REVISION, frames, segments }));
