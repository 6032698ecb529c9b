// What a three.js user sees of IN and OUT: every skinned mesh's vertices as three.js places them
// (SkinnedMesh.getVertexPosition: morph targets, then skinning, then the mesh's world matrix),
// with every clip of IN and the clip of the same name in OUT played at up to 120 frames (30 per
// second), and without animation. Meshes are paired in scene order and vertices by index, so an
// output whose vertices moved into a new bind (issue 40: the bind folded into the vertices and
// the inverse bind matrices) is measured by what it shows, where the shared three_check.mjs
// compares skinning matrices, which a new bind changes by design. A whole-scene turn about +Y by
// quarter turns (the facing fix) is found at the first frame of the first clip (or at rest
// without clips) as the one that fits best, reported as `scene_turn_deg` and factored out.
//
// Usage: node three_vertices.mjs IN OUT [--per-clip]
// --per-clip loads fresh scenes for every clip, so bones a clip leaves alone stand at their rest,
// and compares nothing without clips (without it, clips play one after another on the same
// scenes, each from the rest pose as three_check.mjs does, and the rest is compared without
// clips). Prints one JSON line: {in, out, meshes: [a, b], clips, compared (vertex
// positions), scene_turn_deg, max_rel_error (largest distance relative to the input's size),
// where}. meshopt-compressed files load (three.js's MeshoptDecoder); Draco ones do not.
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
const quiet = console.warn; console.warn = () => {};
const load = async (p) => { const b = fs.readFileSync(p); return new GLTFLoader().setMeshoptDecoder(MeshoptDecoder).parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), ''); };
const [inPath, outPath, flag] = process.argv.slice(2);
const perClip = flag === '--per-clip';
const skinned = (g) => { const s = []; g.scene.traverse((o) => { if (o.isSkinnedMesh) s.push(o); }); return s; };
const saveRest = (g) => { const r = []; g.scene.traverse((o) => r.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone()])); return r; };
const toRest = (r) => { for (const [o, p, q, s] of r) { o.position.copy(p); o.quaternion.copy(q); o.scale.copy(s); } };
// Every vertex of every skinned mesh of `meshes`, in world space, as flat xyz.
const vertices = (meshes) => {
  const out = [], v = new THREE.Vector3();
  for (const m of meshes) {
    const n = m.geometry.attributes.position.count;
    const a = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) { m.getVertexPosition(i, v); v.applyMatrix4(m.matrixWorld); a[3 * i] = v.x; a[3 * i + 1] = v.y; a[3 * i + 2] = v.z; }
    out.push(a);
  }
  return out;
};
// The largest distance between T·a and b over paired vertices, and where.
const compare = (va, vb, T) => {
  const e = T.elements; let worst = 0, at = null, n = 0;
  for (let s = 0; s < Math.min(va.length, vb.length); s++) {
    const a = va[s], b = vb[s];
    for (let i = 0; i < Math.min(a.length, b.length); i += 3) {
      const x = a[i], y = a[i + 1], z = a[i + 2];
      const dx = e[0] * x + e[4] * y + e[8] * z + e[12] - b[i];
      const dy = e[1] * x + e[5] * y + e[9] * z + e[13] - b[i + 1];
      const dz = e[2] * x + e[6] * y + e[10] * z + e[14] - b[i + 2];
      const d = Math.hypot(dx, dy, dz); n++;
      if (d > worst) { worst = d; at = { mesh: s, vertex: i / 3 }; }
    }
  }
  return [worst, at, n];
};
let A = await load(inPath), B = await load(outPath);
let restA = saveRest(A), restB = saveRest(B);
const box = new THREE.Box3().setFromObject(A.scene); const size = new THREE.Vector3(); box.getSize(size);
const height = Math.max(size.x, size.y, size.z, 1e-9);
// Without clips: the rest (as three_check.mjs), or, per clip, nothing.
const clips = A.animations.length ? A.animations.map((c) => c.name) : perClip ? [] : [null];
let worst = 0, where = null, compared = 0, T = null, turnDeg = 0;
for (const name of clips) {
  if (perClip && name !== clips[0]) { A = await load(inPath); B = await load(outPath); restA = saveRest(A); restB = saveRest(B); }
  toRest(restA); toRest(restB);
  const sa = skinned(A), sb = skinned(B);
  const ma = new THREE.AnimationMixer(A.scene), mb = new THREE.AnimationMixer(B.scene);
  const ca = name === null ? null : A.animations.find((c) => c.name === name);
  if (ca) { ma.clipAction(ca).play(); const cb = B.animations.find((c) => c.name === name); if (cb) mb.clipAction(cb).play(); }
  const dur = ca ? ca.duration : 0, n = ca ? Math.min(120, Math.max(2, Math.round(dur * 30) + 1)) : 1;
  for (let k = 0; k < n; k++) {
    const t = n > 1 ? dur * k / (n - 1) : 0;
    ma.setTime(t); mb.setTime(t); A.scene.updateMatrixWorld(true); B.scene.updateMatrixWorld(true);
    const va = vertices(sa), vb = vertices(sb);
    if (T === null) {
      let best = Infinity;
      for (const q of [0, 90, 180, 270]) {
        const R = new THREE.Matrix4().makeRotationY(q * Math.PI / 180);
        const [d] = compare(va, vb, R);
        if (d < best) { best = d; T = R; turnDeg = q; }
      }
    }
    const [d, at, c] = compare(va, vb, T);
    compared += c;
    if (d > worst) { worst = d; where = { clip: name, t: +t.toFixed(3), ...at }; }
  }
}
console.warn = quiet;
console.log(JSON.stringify({ in: inPath, out: outPath, meshes: [skinned(A).length, skinned(B).length], clips: clips.length, compared, scene_turn_deg: turnDeg, max_rel_error: worst / height, where }));
