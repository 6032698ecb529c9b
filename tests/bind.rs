//! Issue 40, item 3: a bind pose real clients show. Blender 5.0.1's glTF importer, with its
//! defaults ("Guess Original Bind Pose" on), builds the rest a user edits from the inverse bind
//! matrices; before the bind was folded into the vertices, a normalized Soldier's armature stood
//! 69 heights from the glTF rest, and CesiumMan's, RiggedFigure's, ModularMen's and
//! RobotExpressive's edit-bone heads 0.18 to 0.59 heights outside the character's box.
//!
//! Every real asset `normalize` takes (`../shared/assets`: glTF, VRM, FBX; BVH has no mesh but
//! goes through too), normalized by default and with `--rebind`, imported into Blender with the
//! operator's defaults (`tests/tools/blender_binds.py`), against the glTF rest as three.js shows
//! it (`tests/tools/three_rest.mjs`):
//! - by default, every edit-bone head lies inside the box of the rest (the meshes, skinned ones
//!   skinned, and the joints: an IK pole target or a toe of a sphere-bodied VRM stands outside
//!   the mesh in the glTF rest itself; the joints alone for a skin without a mesh) grown by 10%
//!   of its largest extent;
//! - with `--rebind`, every edit-bone head is within 1e-4 of that extent of its joint's rest.
//!
//! Then what three.js shows: every default output's skinned vertices, at every frame of every
//! clip (`tests/tools/three_vertices.mjs`), within 1e-5 of the size of the input's (the fold is
//! exact); with `--rebind` the report states each moved skin's largest vertex displacement, and
//! the Khronos validator finds no message code more often than in the input.
//! And normalizing a `--rebind` output again with `--rebind` gives the same bytes.
//!
//! Skips with a message when `../shared/assets`, Blender or three.js is absent.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One input normalized both ways.
struct Normalized {
    /// The input as a glTF file three.js can load (FBX and BVH inputs converted).
    reference: PathBuf,
    what: String,
    default: PathBuf,
    rebind: PathBuf,
    /// The `--rebind` run's report (normalize stage).
    rebind_report: Value,
    /// Whether the input has clips.
    clips: bool,
}

/// Normalizes `input` into `dir` with `flags`; the report, or `None` when normalize refuses it
/// (exit 3: not a humanoid).
fn normalize(input: &Path, out: &Path, flags: &[&str]) -> Option<Value> {
    let report = out.with_extension("report.json");
    let mut args = vec![
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    let run = common::skelnorm(&args);
    match run.status.code() {
        Some(0) => {}
        Some(3) => return None,
        code => panic!(
            "normalize {} {flags:?}: exit {code:?}: {}",
            input.display(),
            String::from_utf8_lossy(&run.stderr)
        ),
    }
    let v: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    Some(common::file_stage(&v, "normalize"))
}

/// Every real input normalized by default and with `--rebind` into `dir`.
fn normalize_all(inputs: &[PathBuf], dir: &Path) -> Vec<Normalized> {
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let ext = input.extension().unwrap().to_str().unwrap();
        if !cfg!(feature = "fbx") && ext == "fbx" {
            eprintln!(
                "skipped: {} (built without the `fbx` feature)",
                input.display()
            );
            continue;
        }
        let ext = if common::is_gltf(input) { ext } else { "glb" };
        let default = dir.join(format!("{i}.{ext}"));
        let rebind = dir.join(format!("{i}.rebind.{ext}"));
        if normalize(input, &default, &[]).is_none() {
            continue;
        }
        let rebind_report = normalize(input, &rebind, &["--rebind"]).unwrap();
        let reference = if common::is_gltf(input) {
            input.clone()
        } else {
            let r = dir.join(format!("{i}.input.glb"));
            let run = common::skelnorm(&["convert", input.to_str().unwrap(), r.to_str().unwrap()]);
            assert!(run.status.success(), "convert {}", input.display());
            r
        };
        let clips = skelnorm::io::read(input, &Default::default())
            .map(|d| !d.model.clips.is_empty())
            .unwrap_or(false);
        out.push(Normalized {
            reference,
            what: input.file_name().unwrap().to_string_lossy().into_owned(),
            default,
            rebind,
            rebind_report,
            clips,
        });
    }
    out
}

fn v3(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap();
    [0, 1, 2].map(|i| a[i].as_f64().unwrap())
}

/// The box of the rest (mesh bounds and joints) three.js gives for one file, and its largest
/// extent.
fn rest_box(rest: &Value) -> ([f64; 3], [f64; 3], f64) {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    let joints = rest["joints"].as_object().unwrap().values();
    let bounds = [&rest["min"], &rest["max"]];
    for p in bounds.into_iter().filter(|v| !v.is_null()).chain(joints) {
        let p = v3(p);
        for c in 0..3 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    let size = (0..3).map(|c| hi[c] - lo[c]).fold(0.0, f64::max).max(1e-9);
    (lo, hi, size)
}

/// Checks one Blender import (`b`) against the glTF rest (`rest`): default outputs' heads inside
/// the grown box, `--rebind` outputs' heads on their joints. Returns (the worst figure, problems).
fn check_heads(what: &str, b: &Value, rest: &Value, rebind: bool) -> (f64, Vec<String>) {
    let mut problems = Vec::new();
    if b["ok"] != true {
        return (
            f64::INFINITY,
            vec![format!("{what}: Blender import failed: {}", b["error"])],
        );
    }
    let (lo, hi, size) = rest_box(rest);
    let heads = b["heads"].as_object().unwrap();
    let mut worst: f64 = 0.0;
    let mut compared = 0;
    for (name, head) in heads {
        let h = v3(head);
        let d = if rebind {
            let Some(j) = rest["joints"].get(name) else {
                continue;
            };
            let j = v3(j);
            (0..3).map(|c| (h[c] - j[c]).abs()).fold(0.0, f64::max) / size
        } else {
            let out = (0..3).map(|c| (lo[c] - h[c]).max(h[c] - hi[c]).max(0.0));
            out.fold(0.0, f64::max) / size
        };
        compared += 1;
        worst = worst.max(d);
        let bound = if rebind { 1e-4 } else { 0.1 };
        if d > bound {
            problems.push(format!(
                "{what}: edit bone `{name}` head {h:?} is {d:.3e} of the height {} (bound {bound})",
                if rebind {
                    "from its joint's rest"
                } else {
                    "outside the rest's box"
                }
            ));
        }
    }
    if compared == 0 {
        problems.push(format!("{what}: no edit-bone head compared"));
    }
    (worst, problems)
}

#[test]
fn blender_shows_the_rest_by_default_and_the_t_pose_with_rebind() {
    let Some(inputs) = common::input_assets() else {
        return;
    };
    if common::blender().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let all = normalize_all(&inputs, dir.path());
    assert!(!all.is_empty(), "no output to import");
    let files: Vec<&PathBuf> = all.iter().flat_map(|n| [&n.default, &n.rebind]).collect();
    let jobs = dir.path().join("jobs.json");
    std::fs::write(&jobs, json!({ "files": files }).to_string()).unwrap();
    let Some(rest) = common::three_rest(&jobs) else {
        return;
    };
    let blender = common::blender_binds(&jobs).unwrap();
    let (rest, blender) = (
        rest["files"].as_array().unwrap(),
        blender["files"].as_array().unwrap(),
    );
    let mut problems = Vec::new();
    for (k, n) in all.iter().enumerate() {
        for (mode, i) in [("default", 2 * k), ("--rebind", 2 * k + 1)] {
            let r = &rest[i];
            if let Some(e) = r.get("error") {
                problems.push(format!("{} ({mode}): three.js cannot load it: {e}", n.what));
                continue;
            }
            let what = format!("{} ({mode})", n.what);
            let path = if mode == "default" {
                &n.default
            } else {
                &n.rebind
            };
            let doc = skelnorm::gltf_io::read(path).unwrap();
            if doc.model.skeletons.iter().all(|s| s.skins.is_empty()) {
                println!("{what}: no skin, so no armature from binds: heads not compared");
                continue;
            }
            let (worst, p) = check_heads(&what, &blender[i], r, mode != "default");
            println!(
                "{what}: edit-bone heads {worst:.2e} of the height {}",
                if mode == "default" {
                    "outside the rest's box grown by 10%"
                } else {
                    "from their joints' rest"
                }
            );
            problems.extend(p);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn default_outputs_skin_exactly_and_rebind_reports_its_displacement() {
    let Some(inputs) = common::input_assets() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    for n in normalize_all(&inputs, dir.path()) {
        // Without a clip, three.js compares the rest, which the T-pose changes by design.
        if n.clips && !common::three_skips(&n.reference) {
            if let Some(e) = common::three_vertices(&n.reference, &n.default, true) {
                println!(
                    "{}: three.js vertices {e:.2e} of the size from the input's",
                    n.what
                );
                if e > 1e-5 {
                    problems.push(format!(
                        "{}: three.js places vertices {e:.2e} of the size from the input's",
                        n.what
                    ));
                }
            }
        }
        // No validator message code more often than in the input (as tests/scene.rs holds the
        // default outputs to).
        if let (Some(before), Some(after)) = (
            common::validator_codes(&n.reference),
            common::validator_codes(&n.rebind),
        ) {
            for (code, k) in &after {
                if k > before.get(code).unwrap_or(&0) {
                    problems.push(format!(
                        "{} --rebind: validator {code} {k} times, input {:?}",
                        n.what,
                        before.get(code)
                    ));
                }
            }
        }
        for s in n.rebind_report["skeletons"].as_array().unwrap() {
            for b in s["rest"]["bind"].as_array().into_iter().flatten() {
                if b["moved"] != true {
                    continue;
                }
                match b["displacement"].as_f64() {
                    Some(d) if d.is_finite() && d >= 0.0 => {
                        println!("{} --rebind: skin `{}`: largest LBS displacement {d:.2e} of the height", n.what, b["skin"]);
                    }
                    _ => problems.push(format!(
                        "{} --rebind: skin {} moved without a displacement",
                        n.what, b["skin"]
                    )),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn rebind_outputs_rebind_to_themselves() {
    let mut inputs = common::fixtures();
    inputs.extend(common::input_assets().unwrap_or_default());
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (i, input) in inputs.iter().enumerate() {
        if !cfg!(feature = "fbx") && input.extension().is_some_and(|e| e == "fbx") {
            continue;
        }
        // A `.gltf` output names its `.bin`: both outputs are GLB, as in tests/idempotence.rs.
        let once = dir.path().join(format!("{i}.glb"));
        let twice = dir.path().join(format!("{i}.again.glb"));
        if normalize(input, &once, &["--rebind"]).is_none() {
            continue;
        }
        normalize(&once, &twice, &["--rebind"]).unwrap();
        assert!(
            std::fs::read(&once).unwrap() == std::fs::read(&twice).unwrap(),
            "{}: normalizing its --rebind output again with --rebind changed it",
            input.display()
        );
        checked += 1;
    }
    assert!(checked > 0, "nothing normalized");
}

/// The warnings of a normalize report (file level).
fn warnings(dir: &Path, input: &Path, name: &str) -> Vec<Value> {
    let out = dir.join(format!("{name}.glb"));
    let report = out.with_extension("report.json");
    let run = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    v["files"][0]["warnings"].as_array().unwrap().clone()
}

/// The inverse bind matrices of skin 0 of the file at `path`.
fn ibms(path: &Path) -> Vec<glam::Mat4> {
    let doc = skelnorm::gltf_io::read(path).unwrap();
    doc.model.skeletons[0].skins[0]
        .inverse_bind_matrices
        .clone()
}

#[test]
fn draco_and_shared_meshes_keep_their_bind_with_a_warning_naming_the_mesh() {
    let dir = tempfile::tempdir().unwrap();
    // A Draco-compressed mesh: its vertices cannot be rewritten.
    let draco = common::root().join("fixtures/blender_draco.glb");
    let w = warnings(dir.path(), &draco, "draco");
    let kept: Vec<&Value> = w.iter().filter(|w| w["code"] == "bind_kept").collect();
    assert_eq!(kept.len(), 1, "{w:?}");
    let message = kept[0]["message"].as_str().unwrap();
    assert!(
        message.contains("meshes[0]") && message.contains("Draco"),
        "{message}"
    );
    // The same character uncompressed moves its vertices, without a warning.
    let fixture = common::root().join("fixtures/blender.glb");
    assert!(warnings(dir.path(), &fixture, "plain")
        .iter()
        .all(|w| w["code"] != "bind_kept"));
    // The same character with its mesh also drawn by a node without the skin.
    let (mut json, bin) = common::split_glb(&std::fs::read(&fixture).unwrap());
    let mesh = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n.get("skin").is_some())
        .unwrap()["mesh"]
        .clone();
    let nodes = json["nodes"].as_array_mut().unwrap();
    nodes.push(json!({ "name": "statue", "mesh": mesh, "translation": [2.0, 0.0, 0.0] }));
    let statue = nodes.len() - 1;
    json["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(statue));
    let shared = dir.path().join("shared_in.glb");
    std::fs::write(&shared, common::join_glb(&json, &bin)).unwrap();
    let w = warnings(dir.path(), &shared, "shared");
    let kept: Vec<&Value> = w.iter().filter(|w| w["code"] == "bind_kept").collect();
    assert_eq!(kept.len(), 1, "{w:?}");
    let message = kept[0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("nodes[{statue}]")), "{message}");
    // Kept: the written matrices are the model's (the statue's mesh is not moved), and the
    // file without the statue moves its vertices.
    let moved = ibms(&dir.path().join("plain.glb"));
    let kept = ibms(&dir.path().join("shared.glb"));
    assert!(moved
        .iter()
        .zip(&kept)
        .any(|(a, b)| !a.abs_diff_eq(*b, 1e-4)));
}
