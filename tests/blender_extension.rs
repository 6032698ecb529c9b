//! Issue 41: the Blender extension (`blender/`), as a user runs it. `python3 blender/build.py`
//! writes `blender/dist/skelnorm-VERSION.zip` (the add-on with the skelnorm wheel inside; `.ci/run`
//! builds it); `tests/tools/blender_extension.py` installs that zip into a headless Blender 5.0.1
//! (`bpy`, a scratch HOME) and calls the operators by their ids:
//! - `skelnorm.import_normalized` on a shared FBX and BVH and on `fixtures/vrm0.vrm` (a skinned
//!   VRM 0.x body; the shared VRMs have no skin, and Blender makes no armature of joint-less
//!   nodes): every edit bone's head is within
//!   1e-4 of the height of its joint's rest as three.js shows `skelnorm normalize --rebind` of the
//!   same file (`tests/tools/three_rest.mjs`): the normalized T-pose is Blender's rest; the mesh's
//!   rest box is three.js's within 1e-4 of the height; and at six key times of a clip every bone's
//!   head is where three.js plays that joint (`tests/tools/three_joints.mjs`), within 1e-4 of the
//!   height (the bound `tests/blender_outputs.rs` holds Blender's importer to);
//! - `skelnorm.retarget` of a Mixamo walk (`fixtures/mixamo.glb`) onto ModularMen_Casual imported
//!   by the extension: every bone of the new `walk` action at every frame is within 1e-5 of the
//!   height of where three.js plays the same joint in the CLI's retarget of the pair (`skelnorm
//!   retarget --source fixtures/mixamo.glb --target` the `--rebind` normalized ModularMen); the
//!   same walk retargeted from the source as an armature (Blender's import of the file, playing
//!   the walk) is within 1e-4 of the height of that;
//! - `skelnorm.batch` over a small folder (a humanoid, a VRM, a quadruped) reports what `skelnorm
//!   batch --rebind` reports of it, writes the same bytes and the HTML report;
//! - a missing file and a file skelnorm does not read fail as Blender error reports naming the
//!   file, with no Python traceback.
//!
//! Skips with a message when `../shared/assets`, Blender, three.js or the zip is absent (under
//! `SKELNORM_REQUIRE_TOOLS=1` a missing zip fails).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The extension zip `blender/build.py` wrote, or `None` (with a message).
fn extension_zip() -> Option<PathBuf> {
    let dist = common::root().join("blender/dist");
    let zip = std::fs::read_dir(&dist).ok().and_then(|entries| {
        entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|e| e == "zip"))
    });
    if zip.is_none() {
        let line = format!(
            "skipped: the Blender extension: no zip in {} (run `python3 blender/build.py`)",
            dist.display()
        );
        assert!(
            std::env::var_os("SKELNORM_REQUIRE_TOOLS").is_none(),
            "required: {line}"
        );
        common::say_once(&line);
    }
    zip
}

fn v3(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap();
    [0, 1, 2].map(|i| a[i].as_f64().unwrap())
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f64>().sqrt()
}

/// The largest extent of a set of points.
fn extent<'a>(points: impl Iterator<Item = &'a Value>) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in points {
        let p = v3(p);
        for c in 0..3 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    (0..3).map(|c| hi[c] - lo[c]).fold(0.0, f64::max)
}

/// The node indices of a glTF/GLB file, by name.
fn node_names(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap();
    let (json, _) = common::split_glb(&bytes);
    json["nodes"]
        .as_array()
        .map(|nodes| {
            nodes
                .iter()
                .map(|n| n["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `skelnorm` and panics with its stderr unless it succeeds.
fn run(args: &[&str]) {
    let out = common::skelnorm(args);
    assert!(
        out.status.success(),
        "skelnorm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Up to six key times of the first clip of a normalized file, and the clip's name.
fn key_times(path: &Path) -> Option<(String, Vec<f64>)> {
    let doc = skelnorm::gltf_io::read(path).unwrap();
    let clip = doc.model.clips.first()?;
    let mut times: Vec<f64> = clip
        .tracks
        .iter()
        .flat_map(|t| t.rotation.iter().flat_map(|r| r.times.iter()))
        .map(|&t| f64::from(t))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let step = (times.len() / 6).max(1);
    let picked = times.iter().step_by(step).take(6).copied().collect();
    Some((clip.name.clone(), picked))
}

/// three.js's world positions of `names`' nodes of `path` at `times` of `clip`: per time, by
/// name; with the height (the nodes' largest extent without animation).
fn three_positions(
    path: &Path,
    names: &[String],
    clip: &str,
    times: &[f64],
    dir: &Path,
) -> Option<(f64, Vec<serde_json::Map<String, Value>>)> {
    let all = node_names(path);
    let nodes: Vec<usize> = names
        .iter()
        .filter_map(|n| all.iter().position(|m| m == n))
        .collect();
    let jobs = dir.join(format!(
        "three-{}.json",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let job = json!({"files": [{"path": path, "nodes": nodes, "clips": {clip: times}}]});
    std::fs::write(&jobs, job.to_string()).unwrap();
    let out = common::three_joints(&jobs)?;
    let file = &out["files"][0];
    let height = file["height"].as_f64().unwrap();
    let samples = file["clips"][clip].as_array().unwrap();
    let by_name = samples
        .iter()
        .map(|at| {
            nodes
                .iter()
                .zip(at.as_array().unwrap())
                .map(|(&n, p)| (all[n].clone(), p.clone()))
                .collect()
        })
        .collect();
    Some((height, by_name))
}

/// Runs the extension in Blender over `jobs`.
fn blender_run(python: &Path, zip: &Path, jobs: &Value, dir: &Path) -> Value {
    let jobs_path = dir.join("blender-jobs.json");
    let out_path = dir.join("blender-out.json");
    std::fs::write(&jobs_path, jobs.to_string()).unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new(python)
        .arg(common::root().join("tests/tools/blender_extension.py"))
        .arg(zip)
        .arg(&jobs_path)
        .arg(&out_path)
        .env("HOME", &home)
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "blender_extension.py failed:\n{log}");
    assert!(
        !log.contains("Traceback"),
        "a Python traceback in Blender's output:\n{log}"
    );
    serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap()
}

#[test]
fn the_extension_imports_normalized_and_retargets_as_the_cli_does() {
    let Some([fbx, bvh, modular]) = common::require([
        "fbx/quaternius_Male_Casual.fbx",
        "bvh/cmu_131_03_maxfriendly.bvh",
        "quaternius/ModularMen_Casual.glb",
    ]) else {
        return;
    };
    let Some(python) = common::blender() else {
        return;
    };
    let Some(zip) = extension_zip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let vrm = common::root().join("fixtures/vrm0.vrm");
    let inputs = [fbx, bvh, vrm];
    // What the extension imports, as the CLI writes it (the operator's defaults: --rebind).
    let mut references = Vec::new();
    let mut imports = Vec::new();
    for input in &inputs {
        let ext = if input.extension().unwrap() == "vrm" {
            "vrm"
        } else {
            "glb"
        };
        let out = dir.path().join(format!(
            "{}.{ext}",
            input.file_stem().unwrap().to_string_lossy()
        ));
        run(&[
            "normalize",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--rebind",
        ]);
        let clips = match key_times(&out) {
            Some((clip, times)) => json!({ clip: times }),
            None => json!({}),
        };
        imports.push(json!({"path": input, "clips": clips}));
        references.push(out);
    }
    let modular_ref = dir.path().join("ModularMen_Casual.glb");
    run(&[
        "normalize",
        modular.to_str().unwrap(),
        "-o",
        modular_ref.to_str().unwrap(),
        "--rebind",
    ]);
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let cli_retarget = dir.path().join("cli_retarget.glb");
    run(&[
        "retarget",
        "--source",
        mixamo.to_str().unwrap(),
        "--target",
        modular_ref.to_str().unwrap(),
        "-o",
        cli_retarget.to_str().unwrap(),
    ]);
    // A small library for the batch: a humanoid, a VRM and a quadruped (refused).
    let library = dir.path().join("library");
    std::fs::create_dir_all(&library).unwrap();
    for f in ["mixamo.glb", "vrm0.vrm", "quadruped.glb"] {
        std::fs::copy(common::root().join("fixtures").join(f), library.join(f)).unwrap();
    }
    let cli_batch = dir.path().join("cli_batch.json");
    let _ = common::skelnorm(&[
        "batch",
        library.to_str().unwrap(),
        "-o",
        dir.path().join("cli_batch").to_str().unwrap(),
        "--rebind",
        "--quiet",
        "--report",
        cli_batch.to_str().unwrap(),
    ]);
    let cli_batch: Value = serde_json::from_slice(&std::fs::read(&cli_batch).unwrap()).unwrap();
    let batch_out = dir.path().join("blender_batch");
    let not_read = dir.path().join("notes.txt");
    std::fs::write(&not_read, "not a character").unwrap();
    let missing = dir.path().join("missing.glb");
    let jobs = json!({
        "imports": imports,
        "retarget": {"target": modular, "source": mixamo, "clip": "walk"},
        "batch": {"input": library, "output": batch_out},
        "errors": [missing, not_read],
    });
    let blender = blender_run(&python, &zip, &jobs, dir.path());
    assert_eq!(blender["installed"], true, "the extension did not install");

    // Rests and clips against three.js.
    let rest_jobs = dir.path().join("rest.json");
    std::fs::write(&rest_jobs, json!({ "files": references }).to_string()).unwrap();
    let Some(rest) = common::three_rest(&rest_jobs) else {
        return;
    };
    let mut problems = Vec::new();
    for (k, reference) in references.iter().enumerate() {
        let b = &blender["imports"][k];
        let what = inputs[k].file_name().unwrap().to_string_lossy().to_string();
        if b["ok"] != true {
            problems.push(format!("{what}: import failed: {}", b["error"]));
            continue;
        }
        // The panel's report: every bone left out says why.
        let report = &b["report"]["skeletons"][0];
        let left_out = report["unmapped_source"].as_array().unwrap();
        let unexplained: Vec<&Value> = left_out
            .iter()
            .filter(|b| !b.as_str().unwrap().contains(": "))
            .collect();
        if !unexplained.is_empty() {
            problems.push(format!(
                "{what}: bones left out with no reason: {unexplained:?}"
            ));
        }
        println!(
            "{what}: {} bones mapped; left out: {}",
            report["mapped"],
            left_out.first().and_then(Value::as_str).unwrap_or("none")
        );
        let r = &rest["files"][k];
        let joints = r["joints"].as_object().unwrap();
        let size = extent(
            joints
                .values()
                .chain([&r["min"], &r["max"]].into_iter().filter(|v| !v.is_null())),
        );
        let heads = b["heads"].as_object().unwrap();
        let (mut worst, mut compared) = (0.0f64, 0);
        for (name, head) in heads {
            let Some(j) = joints.get(name) else { continue };
            let d = distance(v3(head), v3(j)) / size;
            worst = worst.max(d);
            compared += 1;
            if d > 1e-4 {
                problems.push(format!(
                    "{what}: edit bone `{name}` is {d:.2e} of the height from its T-pose rest"
                ));
            }
        }
        if compared < 20 {
            problems.push(format!(
                "{what}: only {compared} edit bones compared with three.js"
            ));
        }
        println!("{what}: {compared} edit-bone heads within {worst:.2e} of the height of three.js's rest");
        if !r["min"].is_null() {
            let bounds = &b["bounds"];
            let d = [("min", &r["min"]), ("max", &r["max"])]
                .iter()
                .map(|(k, v)| distance(v3(&bounds[k]), v3(v)) / size)
                .fold(0.0, f64::max);
            println!("{what}: the mesh's rest box within {d:.2e} of the height of three.js's");
            if d > 1e-4 {
                problems.push(format!(
                    "{what}: the mesh's rest box is {d:.2e} of the height from three.js's"
                ));
            }
        }
        let Some((clip, samples)) = b["clips"].as_object().and_then(|c| c.iter().next()) else {
            continue;
        };
        let Some(samples) = samples.as_array() else {
            problems.push(format!("{what}: clip {clip} has no action in Blender"));
            continue;
        };
        let times: Vec<f64> = jobs["imports"][k]["clips"][clip]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        let names: Vec<String> = heads.keys().cloned().collect();
        let (height, three) = three_positions(reference, &names, clip, &times, dir.path()).unwrap();
        let mut worst: f64 = 0.0;
        for (t, (ours, theirs)) in samples.iter().zip(&three).enumerate() {
            for (name, p) in theirs {
                let d = distance(v3(&ours[name]), v3(p)) / height;
                worst = worst.max(d);
                if d > 1e-4 {
                    problems.push(format!("{what}: `{name}` at {:.3} s of {clip} is {d:.2e} of the height from three.js", times[t]));
                }
            }
        }
        println!(
            "{what}: clip {clip} at {} key times within {worst:.2e} of the height of three.js",
            times.len()
        );
    }

    // The retarget against the CLI's, played by three.js.
    let r = &blender["retarget"];
    assert_eq!(r["ok"], true, "skelnorm.retarget failed: {}", r["error"]);
    let fps = r["fps"].as_f64().unwrap();
    let times: Vec<f64> = r["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_f64().unwrap() / fps)
        .collect();
    let heads = r["heads"].as_array().unwrap();
    let names: Vec<String> = heads[0].as_object().unwrap().keys().cloned().collect();
    let (height, three) =
        three_positions(&cli_retarget, &names, "walk", &times, dir.path()).unwrap();
    let (mut worst, mut compared): (f64, usize) = (0.0, 0);
    for (f, (ours, theirs)) in heads.iter().zip(&three).enumerate() {
        for (name, p) in theirs {
            let d = distance(v3(&ours[name]), v3(p)) / height;
            worst = worst.max(d);
            compared += 1;
            if d > 1e-5 {
                problems.push(format!("retarget: `{name}` at frame {} is {d:.2e} of the height from the CLI's retarget", r["frames"][f]));
            }
        }
    }
    println!(
        "retarget mixamo walk → ModularMen_Casual: {} frames, {compared} joint positions within {worst:.2e} of the height of the CLI's (three.js)",
        times.len()
    );
    assert!(
        compared > 30 * times.len(),
        "only {compared} joint positions compared"
    );
    // The same clip from the source as an armature (exported by Blender's glTF exporter with
    // its action): the same motion, up to the export's rounding of the source.
    assert_eq!(
        r["armature_ok"], true,
        "skelnorm.retarget from an armature failed: {}",
        r["armature_error"]
    );
    let from_armature = r["armature_heads"].as_array().unwrap();
    assert_eq!(from_armature.len(), heads.len(), "frames differ");
    let mut worst: f64 = 0.0;
    for (a, f) in from_armature.iter().zip(heads) {
        for (name, p) in a.as_object().unwrap() {
            worst = worst.max(distance(v3(p), v3(&f[name])) / height);
        }
    }
    println!(
        "retarget from the source as an armature: within {worst:.2e} of the height of the retarget from its file"
    );
    assert!(
        worst < 1e-4,
        "retargeting from the armature is {worst:.2e} of the height from the file's"
    );

    // The batch: what the CLI's batch of the same folder reports, and the HTML report written.
    let b = &blender["batch"];
    assert_eq!(b["ok"], true, "skelnorm.batch failed: {}", b["error"]);
    let kept = &b["kept"];
    for k in ["files", "ok", "warnings", "failed", "refused", "skipped"] {
        assert_eq!(
            kept["summary"][k], cli_batch["summary"][k],
            "batch summary `{k}`: Blender's {} against the CLI's {}",
            kept["summary"], cli_batch["summary"]
        );
    }
    let html = std::fs::read_to_string(kept["html"].as_str().unwrap()).unwrap();
    assert!(html.contains("mixamo.glb"), "the HTML report lists no file");
    println!(
        "batch: {} (the CLI's summary), {}",
        kept["summary"], kept["html"]
    );
    for f in ["mixamo.glb", "vrm0.vrm"] {
        assert_eq!(
            std::fs::read(batch_out.join(f)).unwrap(),
            std::fs::read(dir.path().join("cli_batch").join(f)).unwrap(),
            "{f}: the batch's output differs from the CLI's"
        );
    }

    // Errors as reports, naming the file.
    for (e, path) in blender["errors"]
        .as_array()
        .unwrap()
        .iter()
        .zip([&missing, &not_read])
    {
        let message = e["message"].as_str().unwrap_or("");
        println!("error report: {}", message.trim());
        if !message.contains(&*path.to_string_lossy()) || message.contains("Traceback") {
            problems.push(format!(
                "{}: the error report does not name the file alone: {message}",
                path.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
