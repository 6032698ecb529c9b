// three.js's own retargeting, whole, for `cargo bench --bench process` (issue 19): loads the
// source and the target GLB with GLTFLoader and runs `SkeletonUtils.retargetClip` on one clip of
// the source onto the target's first skinned mesh at 30 fps (as `skelnorm retarget` samples).
//   node three_retarget.mjs SOURCE.glb TARGET.glb CLIP NAMES.json
// NAMES.json maps target bone names to source bone names (three.js does not map bones itself;
// the bench takes the pairs from `skelnorm map` of both files, before timing). Prints one JSON
// line: the clip, its frames and the tracks made.
import fs from 'fs';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
console.warn = () => {};
const load = async (p) => {
  const b = fs.readFileSync(p);
  return new GLTFLoader().parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
};
const [src, tgt, clipName, namesFile] = process.argv.slice(2);
const names = JSON.parse(fs.readFileSync(namesFile, 'utf8'));
const [S, T] = await Promise.all([load(src), load(tgt)]);
const skinned = (g) => { let m = null; g.scene.traverse((o) => { if (!m && o.isSkinnedMesh) m = o; }); return m; };
const source = skinned(S), target = skinned(T);
const clip = S.animations.find((c) => c.name === clipName);
if (!source || !target || !clip) {
  console.log(JSON.stringify({ error: `no skinned mesh or no clip ${clipName}` }));
  process.exit(1);
}
const out = SkeletonUtils.retargetClip(target, source, clip, { names, fps: 30 });
console.log(JSON.stringify({ clip: clip.name, duration: clip.duration, tracks: out.tracks.length, keys: out.tracks[0]?.times.length ?? 0 }));
