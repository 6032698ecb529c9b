//! Issue 16, "a second real client": Blender 5.0 (`bpy`, installed by `.ci/run` into
//! `.tools/blender-venv`) imports every normalized and retargeted output of the real-asset sweep,
//! all in one Python process (`tests/tools/blender_outputs.py`, the glTF importer's defaults).
//!
//! The outputs: every real file in `../shared/assets` that `normalize` takes (glTF, GLB, VRM,
//! VRMA, FBX, BVH; those it refuses with exit 3, the non-humanoids, are listed as skipped), and
//! the retargets in `RETARGETS`, in each mode of `RETARGET_MODES`. For each output:
//! - no import error: the operator raised nothing, returned FINISHED, and logged no ERROR;
//! - the bones: the armatures' bones are exactly the file's skin joints, by the file's node
//!   names; a skeleton node that is no joint (as skelnorm reads the file) is an object; a
//!   normalized output names every mapped bone by its profile name (`Hips`, `LeftUpperArm`, …,
//!   from the normalize report), and Blender has it;
//! - the clips: every glTF animation is an action of its name (the importer's `Anim_<i>` when it
//!   has none), and there is no other action; its frame range is the clip's first and last key
//!   time at Blender's scene rate (24 fps), within one frame.
//!
//! For retarget outputs, every skeleton joint's world position in Blender and in three.js
//! (`tests/tools/three_joints.mjs`) without animation and at up to 8 key times of every clip agree
//! within 1e-4 of the height (the joints' largest extent without animation), over what the
//! retarget's target as it came shows for the same joint (same node name), measured alike (a
//! target of the glTF family; onto an FBX the bound is 1e-4 alone). For Blender 5.0.1's glTF
//! importer misplaces some nodes of some inputs itself: with its default `bone_heuristic`
//! (`BLENDER`) it makes an edit bone `bone_length / max(armature object scale)` long, but moves an
//! object parented to that bone back from the bone's tip by the whole `bone_length`
//! (`io_scene_gltf2/blender/imp/node.py` and `animation_node.py`), so under an armature node of
//! scale s ≠ 1 a node that is no joint but the child of one (an `_end` leaf, a mesh) lands
//! `bone_length · (1 − 1/s) · s` short of its place along the bone. RobotExpressive.glb has an
//! armature node of scale 100: its 15 `_end` leaves are 0.10 to 0.31 of the height off in
//! Blender, in its own clips and without animation, and so in every output that keeps its nodes.
//! Every joint of an output over 1e-4 is printed with the input's figure for it.
//!
//! Only key times are checked: between keys the two clients interpolate differently by design
//! (Blender lerps rotation keys component by component where three.js slerps, and drops
//! CUBICSPLINE tangents: its importer keeps the values and makes Bezier curves with automatic
//! handles); the test measures a quarter of the way to the next key too and prints that
//! difference, without holding it to the bound.
//!
//! Skips with a message when `../shared/assets` or Blender is absent, and skips the position
//! comparison when three.js is.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::{json, Value};
use skelnorm::gltf_io::{self, Document};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Instant;

/// A file the retargets use: in `fixtures/` or in `../shared/assets/`.
#[derive(Clone, Copy)]
enum Src {
    Fixture(&'static str),
    Asset(&'static str),
}

impl Src {
    /// Its path, or `None` with a `skipped:` line when the asset is missing.
    fn path(self) -> Option<PathBuf> {
        match self {
            Src::Fixture(name) => Some(common::root().join("fixtures").join(name)),
            Src::Asset(rel) => common::asset(rel),
        }
    }
}

/// The retargets of the sweep: (source, target). A mocap BVH onto a robot, a VRMA onto a VRM, a
/// glTF character onto an FBX character, and a glTF character onto a fixture.
const RETARGETS: &[(Src, Src)] = &[
    (
        Src::Asset("bvh/cmu_131_03_maxfriendly.bvh"),
        Src::Asset("threejs/RobotExpressive.glb"),
    ),
    (
        Src::Asset("vrm/test.vrma"),
        Src::Asset("vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm"),
    ),
    (
        Src::Fixture("mixamo.glb"),
        Src::Asset("fbx/ufbx_maya_kenney_character_7700_binary.fbx"),
    ),
    (
        Src::Asset("threejs/RobotExpressive.glb"),
        Src::Fixture("long_legs.glb"),
    ),
];

/// The output modes `retarget` runs in: (a name for the output file, its flags): the default
/// (the target as it came plus the new clips in its rests), `--normalized` (the target
/// normalized) and `--animation-only` (the target's skeleton and the new clips). Every check
/// below reads what it expects from the output itself.
const RETARGET_MODES: &[(&str, &[&str])] = &[
    ("default", &[]),
    ("normalized", &["--normalized"]),
    ("animation_only", &["--animation-only"]),
];

/// Runs `skelnorm retarget` in a mode: the one place the test invokes it.
fn retarget(source: &Path, target: &Path, output: &Path, mode: &[&str]) -> Output {
    let mut args = vec![
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ];
    args.extend_from_slice(mode);
    common::skelnorm(&args)
}

/// An output of the sweep and what to hold it to.
struct Written {
    path: PathBuf,
    /// The command that wrote it, for messages.
    what: String,
    /// Profile bone → its node in the output, from the normalize report (none for a retarget).
    mapped: Vec<(String, usize)>,
    /// Compare joint positions with three.js (retarget outputs).
    positions: bool,
    /// A retarget output's target as it came, when of the glTF family: Blender's import of it is
    /// measured alike, and its difference per joint is what the output may keep.
    target: Option<PathBuf>,
}

/// The output file for `input`: its extension when it is of the glTF family, else `.glb`.
fn output_name(stem: &str, input: &Path) -> String {
    let ext = input.extension().unwrap().to_str().unwrap();
    let ext = if common::is_gltf(input) { ext } else { "glb" };
    format!("{stem}.{ext}")
}

/// Normalizes every input into `dir`; returns the outputs and the inputs refused (exit 3) or
/// left out, with why.
fn normalize_all(inputs: &[PathBuf], dir: &Path) -> (Vec<Written>, Vec<String>) {
    let assets = common::root().join("../shared/assets");
    let (mut written, mut skipped) = (Vec::new(), Vec::new());
    for input in inputs {
        let rel = input.strip_prefix(&assets).unwrap().to_string_lossy();
        if !cfg!(feature = "fbx") && rel.ends_with(".fbx") {
            skipped.push(format!("{rel} (built without the `fbx` feature)"));
            continue;
        }
        let out = dir.join(output_name(&rel.replace('/', "_"), input));
        let report = out.with_extension("report.json");
        let run = common::skelnorm(&[
            "normalize",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ]);
        match run.status.code() {
            Some(0) => {}
            Some(3) => {
                skipped.push(format!("{rel} (normalize refuses it: exit 3)"));
                continue;
            }
            code => panic!(
                "normalize {rel}: exit {code:?}: {}",
                String::from_utf8_lossy(&run.stderr)
            ),
        }
        let report = common::file_stage(
            &serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap(),
            "normalize",
        );
        let mut mapped = Vec::new();
        for skeleton in report["skeletons"].as_array().unwrap() {
            for (profile, bone) in skeleton["mapping"]["bones"].as_object().unwrap() {
                mapped.push((profile.clone(), bone["node"].as_u64().unwrap() as usize));
            }
        }
        written.push(Written {
            path: out,
            what: format!("normalize {rel}"),
            mapped,
            positions: false,
            target: None,
        });
    }
    (written, skipped)
}

/// Runs every retarget in every mode into `dir`.
fn retarget_all(dir: &Path) -> Vec<Written> {
    let mut written = Vec::new();
    for (k, (source, target)) in RETARGETS.iter().enumerate() {
        let (Some(source), Some(target)) = (source.path(), target.path()) else {
            continue;
        };
        let fbx = |p: &Path| p.extension().is_some_and(|e| e == "fbx");
        if !cfg!(feature = "fbx") && (fbx(&source) || fbx(&target)) {
            eprintln!("skipped: retarget onto or from FBX (built without the `fbx` feature)");
            continue;
        }
        for (mode, flags) in RETARGET_MODES {
            let name = output_name(&format!("retarget{k}_{mode}"), &target);
            // An animation-only file holds no VRM character: it is a GLB.
            let name = match name.strip_suffix(".vrm") {
                Some(stem) if *mode == "animation_only" => format!("{stem}.glb"),
                _ => name,
            };
            let out = dir.join(name);
            let run = retarget(&source, &target, &out, flags);
            let what = format!(
                "retarget {} → {} ({mode})",
                source.file_name().unwrap().to_string_lossy(),
                target.file_name().unwrap().to_string_lossy()
            );
            assert!(
                run.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
            written.push(Written {
                path: out,
                what,
                mapped: Vec::new(),
                positions: true,
                target: common::is_gltf(&target).then(|| target.clone()),
            });
        }
    }
    written
}

/// The retarget targets as they came (each once), measured like the outputs, so that what
/// Blender's importer does to the input itself is known per joint.
fn target_inputs(written: &[Written]) -> Vec<Written> {
    let mut seen = BTreeSet::new();
    let targets = written.iter().filter_map(|w| w.target.clone());
    targets
        .filter(|t| seen.insert(t.clone()))
        .map(|t| Written {
            what: format!(
                "the target input {}",
                t.file_name().unwrap().to_string_lossy()
            ),
            path: t,
            mapped: Vec::new(),
            positions: true,
            target: None,
        })
        .collect()
}

/// The name of glTF node `i`.
fn node_name(doc: &Document, i: usize) -> Option<&str> {
    doc.json()["nodes"][i]["name"].as_str()
}

/// Every glTF node that is a joint of a skin.
fn joints(doc: &Document) -> BTreeSet<usize> {
    let skins = doc.json()["skins"].as_array().cloned().unwrap_or_default();
    skins
        .iter()
        .flat_map(|s| s["joints"].as_array().unwrap().clone())
        .map(|j| j.as_u64().unwrap() as usize)
        .collect()
}

/// Every glTF node of a skeleton as skelnorm reads the file (joints or not).
fn skeleton_nodes(doc: &Document) -> BTreeSet<usize> {
    let bones = doc.model.skeletons.iter().flat_map(|s| &s.bones);
    bones.filter_map(|b| b.node).map(|n| n as usize).collect()
}

/// A clip: the action name Blender gives it, and every key time of its samplers, sorted.
struct Clip {
    name: String,
    keys: Vec<f64>,
}

/// The floats of accessor `a`: read from the GLB's BIN chunk `bin` when it is plain floats in a
/// plain view (as animation inputs are: FLOAT scalars), else by the library's decoder (sparse or
/// compressed views; it parses the whole document per call, slow in a debug build).
fn floats(doc: &Document, bin: Option<&[u8]>, a: usize) -> Vec<f64> {
    let acc = &doc.json()["accessors"][a];
    let view = acc["bufferView"]
        .as_u64()
        .map(|v| &doc.json()["bufferViews"][v as usize]);
    let plain = |v: &&Value| {
        acc["componentType"] == 5126
            && acc["type"] == "SCALAR"
            && acc.get("sparse").is_none()
            && v.get("extensions").is_none()
            && v["buffer"] == 0
    };
    match (view.filter(plain), bin) {
        (Some(view), Some(bin)) => {
            let at = |v: &Value, key| v[key].as_u64().unwrap_or(0) as usize;
            let start = at(view, "byteOffset") + at(acc, "byteOffset");
            let stride = view["byteStride"].as_u64().unwrap_or(4) as usize;
            (0..at(acc, "count"))
                .map(|i| {
                    let b = &bin[start + i * stride..start + i * stride + 4];
                    f32::from_le_bytes(b.try_into().unwrap()) as f64
                })
                .collect()
        }
        _ => {
            let (v, _) = doc.accessor_floats(a).unwrap();
            v.iter().map(|&x| x as f64).collect()
        }
    }
}

/// Every clip of the file at `path` (read as `doc`).
fn clips(path: &Path, doc: &Document) -> Vec<Clip> {
    let bytes = std::fs::read(path).unwrap();
    let bin = bytes
        .starts_with(b"glTF")
        .then(|| common::split_glb(&bytes).1);
    let anims = doc.json()["animations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    anims
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut keys: Vec<f64> = Vec::new();
            for s in a["samplers"].as_array().unwrap() {
                let input = s["input"].as_u64().unwrap() as usize;
                keys.extend(floats(doc, bin.as_deref(), input));
            }
            keys.sort_by(f64::total_cmp);
            keys.dedup();
            let name = a["name"]
                .as_str()
                .map_or(format!("Anim_{i}"), str::to_string);
            Clip { name, keys }
        })
        .collect()
}

/// The joints whose positions the clients compare, and when.
struct Request {
    nodes: Vec<usize>,
    names: Vec<String>,
    /// Per clip: up to 8 of its key times, then a quarter of the way from each but the last to
    /// the key after it.
    times: BTreeMap<String, Vec<f64>>,
    /// Per clip: how many of its times are key times.
    at_keys: BTreeMap<String, usize>,
}

fn request(path: &Path, doc: &Document) -> Request {
    let mut nodes = Vec::new();
    let mut names = Vec::new();
    let mut seen = BTreeSet::new();
    for n in skeleton_nodes(doc) {
        // Blender renames a second node of the same name: compare the first only.
        if let Some(name) = node_name(doc, n).filter(|name| seen.insert(name.to_string())) {
            nodes.push(n);
            names.push(name.to_string());
        }
    }
    let (mut times, mut at_keys) = (BTreeMap::new(), BTreeMap::new());
    for clip in clips(path, doc).into_iter().filter(|c| !c.keys.is_empty()) {
        let n = clip.keys.len();
        let mut picked: Vec<usize> = (0..8).map(|i| (i * (n - 1) + 3) / 7).collect();
        picked.dedup();
        let mut t: Vec<f64> = picked.iter().map(|&k| clip.keys[k]).collect();
        t.extend(
            picked
                .iter()
                .filter(|&&k| k + 1 < n)
                .map(|&k| clip.keys[k] + 0.25 * (clip.keys[k + 1] - clip.keys[k])),
        );
        at_keys.insert(clip.name.clone(), picked.len());
        times.insert(clip.name, t);
    }
    Request {
        nodes,
        names,
        times,
        at_keys,
    }
}

/// Checks Blender's import `b` of `w` against the file; returns the problems.
fn check_import(w: &Written, doc: &Document, b: &Value, fps: f64) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |p: String| problems.push(format!("{}: {p}", w.what));
    if b["ok"] != true {
        fail(format!(
            "import failed: result {}, error {}",
            b["result"], b["error"]
        ));
    }
    for m in b["messages"].as_array().unwrap() {
        let m = m.as_str().unwrap();
        if m.starts_with("ERROR") || m.starts_with("CRITICAL") {
            fail(format!("the importer logged `{m}`"));
        } else {
            println!("{}: the importer logged `{m}`", w.what);
        }
    }
    // Bones: exactly the skin joints, by name.
    let bones: BTreeSet<&str> = b["armatures"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["bones"].as_array().unwrap())
        .map(|n| n.as_str().unwrap())
        .collect();
    let objects: BTreeSet<&str> = b["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    let joint_nodes = joints(doc);
    let mut joint_names = BTreeSet::new();
    for &j in &joint_nodes {
        match node_name(doc, j) {
            Some(name) => {
                joint_names.insert(name);
            }
            None => fail(format!("joint node {j} has no name")),
        }
    }
    let lost: Vec<_> = joint_names.difference(&bones).collect();
    let extra: Vec<_> = bones.difference(&joint_names).collect();
    if !lost.is_empty() || !extra.is_empty() {
        fail(format!(
            "joints that are no bone in Blender: {lost:?}; bones that are no joint: {extra:?}"
        ));
    }
    for n in skeleton_nodes(doc).difference(&joint_nodes) {
        let name = node_name(doc, *n).unwrap_or("");
        if !objects.contains(name) {
            fail(format!(
                "skeleton node {n} `{name}` (no joint) is no object"
            ));
        }
    }
    for (profile, node) in &w.mapped {
        match node_name(doc, *node) {
            Some(name) if name == profile => {
                if !bones.contains(name) && !objects.contains(name) {
                    fail(format!(
                        "mapped bone `{profile}` is neither bone nor object"
                    ));
                }
            }
            other => fail(format!(
                "mapped bone `{profile}` is node {node} named {other:?}"
            )),
        }
    }
    // Clips: one action each, over the clip's key times.
    let actions: BTreeMap<&str, &Value> = b["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), &a["frame_range"]))
        .collect();
    let clips = clips(&w.path, doc);
    for clip in &clips {
        let Some(range) = actions.get(clip.name.as_str()) else {
            fail(format!("clip `{}` is no action", clip.name));
            continue;
        };
        if clip.keys.is_empty() {
            fail(format!("clip `{}` has no key", clip.name));
            continue;
        }
        let (lo, hi) = (clip.keys[0] * fps, clip.keys[clip.keys.len() - 1] * fps);
        let (start, end) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
        if (start - lo).abs() > 1.0 || (end - hi).abs() > 1.0 {
            fail(format!(
                "clip `{}`: action frames {start}..{end}, the clip's keys {lo}..{hi}",
                clip.name
            ));
        }
    }
    for name in actions.keys() {
        if !clips.iter().any(|c| c.name == *name) {
            fail(format!("action `{name}` is no clip of the file"));
        }
    }
    problems
}

/// How far Blender's joint positions are from three.js's, over the height: the largest
/// difference without animation and at key times (checked), and between keys (not), each with
/// where, how many were compared, and per joint name its largest checked difference and where.
#[derive(Default)]
struct Agreement {
    at_keys: (f64, String),
    between: (f64, String),
    compared_at_keys: usize,
    compared_between: usize,
    per_joint: BTreeMap<String, (f64, String)>,
}

impl Agreement {
    /// Counts the difference `d` of joint `name` at `at`.
    fn add(&mut self, checked: bool, d: f64, name: &str, at: String) {
        let (worst, count) = if checked {
            let joint = self.per_joint.entry(name.to_string()).or_default();
            if d > joint.0 {
                *joint = (d, at.clone());
            }
            (&mut self.at_keys, &mut self.compared_at_keys)
        } else {
            (&mut self.between, &mut self.compared_between)
        };
        *count += 1;
        if d > worst.0 {
            *worst = (d, format!("{at}, `{name}`"));
        }
    }
}

/// The distance between the positions `p` and `q` (JSON `[x, y, z]`) over `h`.
fn distance(p: &Value, q: &Value, h: f64) -> f64 {
    (0..3)
        .map(|c| (p[c].as_f64().unwrap() - q[c].as_f64().unwrap()).powi(2))
        .sum::<f64>()
        .sqrt()
        / h
}

/// Compares Blender's positions `b` with three.js's `t` for `req`; problems when something could
/// not be compared.
fn agree(w: &Written, req: &Request, b: &Value, t: &Value) -> (Agreement, Vec<String>) {
    let mut out = Agreement::default();
    let mut problems = Vec::new();
    let h = t["height"].as_f64().unwrap();
    if h.is_nan() || h <= 0.0 {
        problems.push(format!("{}: three.js gives a height of {h}", w.what));
    }
    for (side, v) in [("Blender", b), ("three.js", t)] {
        for c in v["missing_clips"].as_array().unwrap() {
            problems.push(format!("{}: {side} has no clip {c}", w.what));
        }
    }
    for (name, f) in req.names.iter().zip(b["found"].as_array().unwrap()) {
        if f.is_null() {
            problems.push(format!(
                "{}: `{name}` is no bone of one armature nor an object in Blender",
                w.what
            ));
        }
    }
    for (j, name) in req.names.iter().enumerate() {
        let (p, q) = (&b["still"][j], &t["still"][j]);
        if !p.is_null() {
            out.add(true, distance(p, q, h), name, "no animation".into());
        }
    }
    for (clip, times) in &req.times {
        let (Some(bs), Some(ts)) = (
            b["clips"][clip.as_str()].as_array(),
            t["clips"][clip.as_str()].as_array(),
        ) else {
            continue;
        };
        for (k, time) in times.iter().enumerate() {
            for (j, name) in req.names.iter().enumerate() {
                let (p, q) = (&bs[k][j], &ts[k][j]);
                if p.is_null() {
                    continue; // not found: a problem above
                }
                let at = format!("clip `{clip}` at {time:.4} s");
                out.add(k < req.at_keys[clip], distance(p, q, h), name, at);
            }
        }
    }
    (out, problems)
}

/// Normalizes every real input and runs every retarget into `dir`, listing what it skips.
fn outputs(inputs: &[PathBuf], dir: &Path) -> Vec<Written> {
    let (mut written, skipped) = normalize_all(inputs, dir);
    for s in &skipped {
        println!("skipped: {s}");
    }
    written.extend(retarget_all(dir));
    written
}

/// The position requests of the outputs that want them (and that three.js in Node can load).
fn requests(written: &[Written], docs: &[Document]) -> Vec<Option<Request>> {
    let wanted = |w: &Written| {
        if w.positions && common::three_skips(&w.path) {
            eprintln!(
                "skipped: positions of {} (three.js in Node cannot load it)",
                w.what
            );
        }
        w.positions && !common::three_skips(&w.path)
    };
    written
        .iter()
        .zip(docs)
        .map(|(w, doc)| wanted(w).then(|| request(&w.path, doc)))
        .collect()
}

/// three.js's positions for every request (its answers in the requests' order), or `None`
/// (with a message) when three.js is missing or nothing asks.
fn ask_three(written: &[Written], requests: &[Option<Request>], dir: &Path) -> Option<Value> {
    let jobs: Vec<Value> = written
        .iter()
        .zip(requests)
        .filter_map(|(w, r)| {
            let r = r.as_ref()?;
            Some(json!({"path": w.path, "nodes": r.nodes, "clips": r.times}))
        })
        .collect();
    if jobs.is_empty() {
        return None;
    }
    let path = dir.join("three_jobs.json");
    std::fs::write(&path, json!({ "files": jobs }).to_string()).unwrap();
    let answer = common::three_joints(&path)?;
    let files = answer["files"].as_array().unwrap();
    assert_eq!(files.len(), jobs.len(), "three.js answers every file");
    Some(answer)
}

/// Blender's import of every output, in one process, with positions where `requests` asks.
fn ask_blender(written: &[Written], requests: &[Option<Request>], dir: &Path) -> Value {
    let jobs: Vec<Value> = written
        .iter()
        .zip(requests)
        .map(|(w, r)| {
            let positions = r
                .as_ref()
                .map(|r| json!({"names": r.names, "clips": r.times}));
            json!({"path": w.path, "positions": positions})
        })
        .collect();
    let path = dir.join("blender_jobs.json");
    std::fs::write(&path, json!({ "files": jobs }).to_string()).unwrap();
    let answer = common::blender_outputs(&path).unwrap();
    let files = answer["files"].as_array().unwrap();
    assert_eq!(files.len(), written.len(), "Blender answers every file");
    for (w, b) in written.iter().zip(files) {
        assert_eq!(
            b["path"],
            json!(w.path),
            "Blender answers in the jobs' order"
        );
    }
    answer
}

/// One line on what Blender made of an output.
fn describe(w: &Written, b: &Value) {
    let arms = b["armatures"].as_array().unwrap();
    let bones: usize = arms
        .iter()
        .map(|a| a["bones"].as_array().unwrap().len())
        .sum();
    println!(
        "{}: imported in {:.3} s: {} armature(s), {bones} bones, {} object(s), {} action(s)",
        w.what,
        b["seconds"].as_f64().unwrap(),
        arms.len(),
        b["objects"].as_array().unwrap().len(),
        b["actions"].as_array().unwrap().len()
    );
}

/// Measures Blender's positions `b` against three.js's `t` for `req` (an output or a target
/// input) and prints the largest differences; returns the agreement and what could not be
/// compared.
fn measure(w: &Written, r: &Request, b: &Value, t: &Value) -> (Agreement, Vec<String>) {
    assert_eq!(
        t["path"],
        json!(w.path),
        "three.js answers in the jobs' order"
    );
    let (a, mut problems) = agree(w, r, b, t);
    println!(
        "{}: largest difference {:.2e} of the height without animation and at key times ({}; {} \
         joint positions), {:.2e} between keys (not checked: {}; {} joint positions)",
        w.what,
        a.at_keys.0,
        a.at_keys.1,
        a.compared_at_keys,
        a.between.0,
        a.between.1,
        a.compared_between
    );
    if a.compared_at_keys == 0 {
        problems.push(format!("{}: no joint position compared", w.what));
    }
    (a, problems)
}

/// Compares the positions of one retarget output; returns the problems. `input`: its target
/// input's agreement, when measured: a joint may differ by as much as it does there (same name),
/// plus the bound; without it, by the bound.
fn check_positions(
    w: &Written,
    r: &Request,
    b: &Value,
    t: &Value,
    input: Option<&Agreement>,
) -> Vec<String> {
    let (a, mut problems) = measure(w, r, b, t);
    let none = (0.0, String::new());
    let mut beyond = (f64::NEG_INFINITY, String::new());
    for (name, (d, at)) in &a.per_joint {
        let (own, own_at) = input.and_then(|i| i.per_joint.get(name)).unwrap_or(&none);
        if d - own > beyond.0 {
            beyond = (d - own, format!("{at}, `{name}`"));
        }
        if *d <= 1e-4 {
            continue;
        }
        let line = format!(
            "{}: Blender and three.js differ by {d:.2e} of the height at {at}, `{name}`; on the \
             target input by {own:.2e}{}",
            w.what,
            if own_at.is_empty() {
                String::new()
            } else {
                format!(" ({own_at})")
            }
        );
        if d - own > 1e-4 {
            problems.push(line);
        } else {
            println!("{line}: no more than Blender's import of the input itself");
        }
    }
    if input.is_some() {
        println!(
            "{}: largest difference over the target input's own for the same joint: {:.2e} ({})",
            w.what, beyond.0, beyond.1
        );
    }
    problems
}

#[test]
fn blender_imports_every_normalized_and_retargeted_output() {
    let start = Instant::now();
    let Some(inputs) = common::input_assets() else {
        return;
    };
    if common::blender().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut written = outputs(&inputs, dir.path());
    assert!(!written.is_empty(), "no output to import");
    let outputs_count = written.len();
    written.extend(target_inputs(&written));
    let written_in = start.elapsed();
    let docs: Vec<Document> = written
        .iter()
        .map(|w| {
            gltf_io::read(&w.path)
                .unwrap_or_else(|e| panic!("{}: reading the output back: {e}", w.what))
        })
        .collect();
    // three.js first: without it, Blender is not asked for positions either.
    let mut requests = requests(&written, &docs);
    let three = ask_three(&written, &requests, dir.path());
    if three.is_none() {
        requests.iter_mut().for_each(|r| *r = None);
    }
    let blender_start = Instant::now();
    let blender = ask_blender(&written, &requests, dir.path());
    let blender_in = blender_start.elapsed();
    let fps = blender["scene_fps"].as_f64().unwrap();
    let three_files: Vec<&Value> = three
        .iter()
        .flat_map(|t| t["files"].as_array().unwrap())
        .collect();
    let mut three_files = three_files.into_iter();
    let mut positions = Vec::new();
    let files = blender["files"].as_array().unwrap();
    for (b, r) in files.iter().zip(&requests) {
        let t = r.as_ref().map(|_| three_files.next().unwrap());
        positions.push(t.filter(|_| !b["positions"].is_null()));
    }
    // The target inputs first: what Blender does to them bounds what it may do to the outputs.
    let mut problems = Vec::new();
    let mut measured = BTreeMap::new();
    for i in outputs_count..written.len() {
        let (w, b) = (&written[i], &files[i]);
        if let (Some(r), Some(t)) = (&requests[i], positions[i]) {
            let (a, p) = measure(w, r, &b["positions"], t);
            problems.extend(p);
            measured.insert(w.path.clone(), a);
        }
    }
    for i in 0..outputs_count {
        let (w, b) = (&written[i], &files[i]);
        describe(w, b);
        problems.extend(check_import(w, &docs[i], b, fps));
        if let (Some(r), Some(t)) = (&requests[i], positions[i]) {
            let input = w.target.as_ref().and_then(|t| measured.get(t));
            problems.extend(check_positions(w, r, &b["positions"], t, input));
        }
    }
    println!(
        "{} outputs and {} target inputs: written in {:.1} s, imported into Blender in {:.1} s \
         (after `import bpy`: {:.1} s), {:.1} s in all",
        outputs_count,
        written.len() - outputs_count,
        written_in.as_secs_f64(),
        blender_in.as_secs_f64(),
        blender["seconds"].as_f64().unwrap(),
        start.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
