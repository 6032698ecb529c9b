// Count the Khronos glTF Validator's messages per code, all severities (errors, warnings,
// infos such as UNUSED_OBJECT, hints); print one JSON object. Run with NODE_PATH at the
// node_modules holding gltf-validator.
const fs = require('fs'), path = require('path'), v = require('gltf-validator');
const full = path.resolve(process.argv[2]);
v.validateBytes(new Uint8Array(fs.readFileSync(full)), {
  uri: path.basename(full), maxIssues: 0,
  externalResourceFunction: (u) => new Promise((res, rej) =>
    fs.readFile(path.resolve(path.dirname(full), decodeURIComponent(u)), (e, d) => e ? rej(e.toString()) : res(d)))
}).then(r => {
  const counts = {};
  for (const m of r.issues.messages) counts[m.code] = (counts[m.code] || 0) + 1;
  console.log(JSON.stringify(counts));
}, e => { console.error(String(e)); process.exit(2); });
