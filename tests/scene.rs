//! Issue 16: outputs real clients take as they are. On every fixture and every real file in
//! ../shared/assets (glTF, VRM, FBX, BVH), `normalize` by default leaves the character facing +Z
//! in the scene with identity transforms on every node above the skeleton; with
//! `--keep-scene-transform` the scene plays exactly as the input's. Either way, no validator
//! message code occurs more often than in the input (for FBX and BVH: than in their plain
//! conversion).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::Value;
use skelnorm::check;
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::profile::Profile;
use std::path::{Path, PathBuf};

fn inputs() -> Vec<PathBuf> {
    let mut files = common::fixtures();
    files.extend(common::input_assets().unwrap_or_default());
    files
}

/// Runs skelnorm; the exit code and stdout.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = common::skelnorm(args);
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 3),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Whether glTF node `n` has the identity transform (absent, or explicit identity values).
fn identity_node(json: &Value, n: u32) -> bool {
    let node = &json["nodes"][n as usize];
    let is = |key: &str, want: &[f64]| {
        node.get(key).is_none_or(|v| {
            v.as_array().is_some_and(|a| {
                a.len() == want.len()
                    && a.iter()
                        .zip(want)
                        .all(|(x, w)| (x.as_f64().unwrap() - w).abs() <= 1e-6)
            })
        })
    };
    let mut m = vec![0.0; 16];
    for i in [0, 5, 10, 15] {
        m[i] = 1.0;
    }
    is("translation", &[0.0; 3])
        && is("rotation", &[0.0, 0.0, 0.0, 1.0])
        && is("scale", &[1.0; 3])
        && is("matrix", &m)
}

/// Fails when a validator message code occurs more often in `output` than in `input`.
fn no_new_messages(input: &Path, output: &Path, what: &str) {
    let (Some(before), Some(after)) = (
        common::validator_codes(input),
        common::validator_codes(output),
    ) else {
        return;
    };
    for (code, count) in &after {
        let was = before.get(code).copied().unwrap_or(0);
        assert!(
            *count <= was,
            "{what}: validator {code} {count} times, the input had {was}"
        );
    }
}

#[test]
fn normalized_scenes_face_plus_z_with_nothing_above_the_skeleton() {
    let dir = tempfile::tempdir().unwrap();
    let profile = Profile::humanoid();
    let mut checked = 0;
    for (n, file) in inputs().iter().enumerate() {
        let p = file.to_str().unwrap();
        let out = dir.path().join(format!("{n}.glb"));
        let keep = dir.path().join(format!("{n}_keep.glb"));
        let (code, json) = run(&["normalize", p, "-o", out.to_str().unwrap(), "--json"]);
        if code == Some(3) {
            continue; // not a humanoid
        }
        run(&[
            "normalize",
            p,
            "-o",
            keep.to_str().unwrap(),
            "--keep-scene-transform",
        ]);
        // What the output is compared with: the file, or the plain conversion of FBX and BVH.
        let plain = if common::is_gltf(file) {
            file.clone()
        } else {
            let plain = dir.path().join(format!("{n}_plain.glb"));
            run(&["convert", p, plain.to_str().unwrap()]);
            plain
        };
        let doc = gltf_io::read(&out).unwrap();
        let report: Value = serde_json::from_str(&json).unwrap();
        for (k, s) in doc.model.skeletons.iter().enumerate() {
            if report["skeletons"][k]["skipped"].is_string() {
                continue;
            }
            let rest = &report["skeletons"][k]["rest"];
            let base_kept = rest["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["code"] == "base_not_folded");
            if !base_kept {
                for &node in &s.base_nodes {
                    assert!(
                        identity_node(doc.json(), node),
                        "{p}: node {node} above skeleton `{}` has a transform",
                        s.name
                    );
                }
            }
            let map = map_skeleton(s, profile, &MapOptions::default());
            let r = check::rest(s, &map, profile);
            assert!(
                r.faces_plus_z,
                "{p}: skeleton `{}` does not face +Z",
                s.name
            );
            assert!(
                r.max_direction_deg <= 1.0,
                "{p}: rest directions within {}°",
                r.max_direction_deg
            );
            // The hips (and hands) take the profile's frame in the scene, whatever their tail
            // (RiggedFigure's FBX hips sit under an animated, upside-down armature node).
            for (bone, deg) in &r.roll_deg {
                assert!(
                    *deg <= 1.0,
                    "{p}: {bone} rolled {deg}° from the profile's frame"
                );
            }
            assert!(
                r.reversed_tails.is_empty() || r.max_frame_deg <= 1.0,
                "{p}: {:?} off the profile's frame by {}°",
                r.reversed_tails,
                r.max_frame_deg
            );
        }
        no_new_messages(&plain, &out, p);
        no_new_messages(&plain, &keep, &format!("{p} --keep-scene-transform"));
        // Keeping the scene's transform, three.js plays the output where it played the input.
        if !common::three_skips(&plain) {
            if let Some((_, e)) = common::three_per_clip(&plain, &keep) {
                assert!(e <= 1e-5, "{p} --keep-scene-transform: three.js error {e}");
            }
        }
        checked += 1;
    }
    eprintln!("{checked} files normalized and checked");
    assert!(checked >= 11);
}
