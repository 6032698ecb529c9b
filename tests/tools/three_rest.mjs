// The glTF rest as three.js shows it, without animation: the bounds of every mesh (skinned meshes
// skinned: Box3.setFromObject(scene, precise)) and every bone's world position.
// Usage: node three_rest.mjs FILES.json; FILES.json: {"files": [path, ...]}. Prints one JSON line:
// {"files": [{"path", "min": [x, y, z] | null, "max": .., "joints": {name: [x, y, z]}} | {"path",
// "error"}]} (a name held by two bones is left out).
import fs from 'fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
globalThis.self ??= globalThis;
globalThis.createImageBitmap ??= async () => ({ width: 1, height: 1, close() {} });
const quiet = console.warn; console.warn = () => {};
const files = [];
for (const path of JSON.parse(fs.readFileSync(process.argv[2])).files) {
  try {
    const b = fs.readFileSync(path);
    const g = await new GLTFLoader().parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
    g.scene.updateMatrixWorld(true);
    const box = new THREE.Box3().setFromObject(g.scene, true);
    const joints = {}, twice = new Set(), v = new THREE.Vector3();
    g.scene.traverse((o) => {
      if (!o.isBone) return;
      if (o.name in joints) twice.add(o.name);
      joints[o.name] = o.getWorldPosition(v).toArray();
    });
    for (const n of twice) delete joints[n];
    const empty = box.isEmpty();
    files.push({ path, min: empty ? null : box.min.toArray(), max: empty ? null : box.max.toArray(), joints });
  } catch (e) { files.push({ path, error: String(e) }); }
}
console.warn = quiet;
console.log(JSON.stringify({ files }));
