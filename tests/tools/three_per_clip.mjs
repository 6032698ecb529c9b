// Like ../shared/tools/three_check.mjs, but every clip plays on freshly loaded scenes, so bones a
// clip leaves alone stand at their rest instead of keeping the previous clip's pose (the shared
// check plays clips one after another on the same scene). Prints one JSON line: `raw` is the
// shared check's measure (axis elements absolute, translations relative to the model's size);
// `unit_free` divides axis elements by their column's length in the input, so a mesh stored in
// other units than its skeleton (an armature scaled by 100) is measured like any other.
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
const quiet = console.warn; console.warn = () => {};
const load = async (p) => { const b = fs.readFileSync(p); return new GLTFLoader().parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), ''); };
const [ia, ib] = process.argv.slice(2);
const first = await load(ia);
let raw = 0, unitFree = 0, where = null, compared = 0;
for (const clip of first.animations) {
  const A = await load(ia), B = await load(ib);
  const skins = (g) => { const s = []; g.scene.traverse((o) => { if (o.isSkinnedMesh) s.push(o); }); return s; };
  const sa = skins(A), sb = skins(B);
  const ca = A.animations.find((c) => c.name === clip.name), cb = B.animations.find((c) => c.name === clip.name);
  if (!cb) { console.log(JSON.stringify({ error: `no clip ${clip.name} in ${ib}` })); process.exit(1); }
  const ma = new THREE.AnimationMixer(A.scene), mb = new THREE.AnimationMixer(B.scene);
  ma.clipAction(ca).play(); mb.clipAction(cb).play();
  const box = new THREE.Box3().setFromObject(A.scene); const size = new THREE.Vector3(); box.getSize(size);
  const height = Math.max(size.x, size.y, size.z, 1e-9);
  const n = Math.min(120, Math.max(2, Math.round(ca.duration * 30) + 1));
  for (let k = 0; k < n; k++) {
    const t = ca.duration * k / (n - 1);
    ma.setTime(t); mb.setTime(t); A.scene.updateMatrixWorld(true); B.scene.updateMatrixWorld(true);
    for (let s = 0; s < Math.min(sa.length, sb.length); s++) {
      const ka = sa[s].skeleton, kb = sb[s].skeleton;
      for (let j = 0; j < Math.min(ka.bones.length, kb.bones.length); j++) {
        const m1 = new THREE.Matrix4().multiplyMatrices(ka.bones[j].matrixWorld, ka.boneInverses[j]).elements;
        const m2 = new THREE.Matrix4().multiplyMatrices(kb.bones[j].matrixWorld, kb.boneInverses[j]).elements;
        compared++;
        for (let i = 0; i < 16; i++) {
          const c = Math.floor(i / 4);
          const len = Math.hypot(m1[4 * c], m1[4 * c + 1], m1[4 * c + 2]) || 1;
          const d = Math.abs(m1[i] - m2[i]);
          const r = d / (i >= 12 ? height : 1), u = d / (i >= 12 ? height : len);
          if (u > unitFree) { unitFree = u; where = { clip: clip.name, t: +t.toFixed(3), bone: ka.bones[j].name }; }
          raw = Math.max(raw, r);
        }
      }
    }
  }
}
console.warn = quiet;
console.log(JSON.stringify({ in: ia, out: ib, clips: first.animations.length, compared, raw, unit_free: unitFree, where }));
