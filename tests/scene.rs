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
use skelnorm::model::SkeletonId;
use skelnorm::profile::Profile;
use std::path::Path;

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
    for (n, file) in common::all_inputs().iter().enumerate() {
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
        let report = common::file_stage(&serde_json::from_str(&json).unwrap(), "normalize");
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
            // As the file's clients show it: a VRM 0.x output faces −Z in its file (issue 40).
            let r = check::rest_as_shown(&doc.model, SkeletonId(k as u32), &map, profile);
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

/// The local matrix of glTF node `n` (TRS or `matrix`).
fn local(json: &Value, n: usize) -> glam::Mat4 {
    let node = &json["nodes"][n];
    let f = |key: &str| -> Option<Vec<f32>> {
        node.get(key).map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
    };
    if let Some(m) = f("matrix") {
        return glam::Mat4::from_cols_slice(&m);
    }
    glam::Mat4::from_scale_rotation_translation(
        f("scale").map_or(glam::Vec3::ONE, |v| glam::Vec3::from_slice(&v)),
        f("rotation").map_or(glam::Quat::IDENTITY, |v| glam::Quat::from_slice(&v)),
        f("translation").map_or(glam::Vec3::ZERO, |v| glam::Vec3::from_slice(&v)),
    )
}

/// The world matrix of glTF node `n`.
fn world(json: &Value, n: usize) -> glam::Mat4 {
    let nodes = json["nodes"].as_array().unwrap();
    let parent = nodes.iter().position(|p| {
        p["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|v| v.as_u64() == Some(n as u64)))
    });
    parent.map_or(glam::Mat4::IDENTITY, |p| world(json, p)) * local(json, n)
}

/// Cameras around a character that faces −Z (the VRM 0.x fixture without its VRM extension: a
/// VRM 0.x file faces −Z by its convention and keeps facing so): at the scene root, under the
/// armature, under the skinned body, and in a second scene. The whole scene turns 180° once: every camera's world
/// transform is the turned old one, no validator code is added, and a second run changes
/// nothing. Animating the root camera keeps the scene instead (`scene_kept`): its keys would
/// not turn.
#[test]
fn the_scene_turns_once_around_cameras_and_props() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/vrm0.vrm")).unwrap());
    json["cameras"] = serde_json::json!([{ "type": "perspective", "perspective": { "yfov": 0.8, "znear": 0.1 } }]);
    let n = json["nodes"].as_array().unwrap().len();
    let body = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|x| x.get("skin").is_some())
        .unwrap();
    let cams = [
        serde_json::json!({ "name": "CamRoot", "camera": 0, "translation": [0, 1, 3] }),
        serde_json::json!({ "name": "CamUnderArmature", "camera": 0, "translation": [0.5, 1, 2] }),
        serde_json::json!({ "name": "CamUnderBody", "camera": 0, "translation": [0, 1, 2] }),
        serde_json::json!({ "name": "CamScene2", "camera": 0, "translation": [1, 0, 0] }),
    ];
    json["nodes"].as_array_mut().unwrap().extend(cams);
    let armature = json["scenes"][0]["nodes"][0].as_u64().unwrap() as usize;
    json["nodes"][armature]["children"]
        .as_array_mut()
        .unwrap()
        .push((n + 1).into());
    json["nodes"][body]["children"] = serde_json::json!([n + 2]);
    json["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(n.into());
    json["scenes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({ "nodes": [n + 3] }));
    json.as_object_mut().unwrap().remove("extensions");
    json.as_object_mut().unwrap().remove("extensionsUsed");
    let input = dir.path().join("cams.glb");
    std::fs::write(&input, common::join_glb(&json, &bin)).unwrap();
    let (out, again) = (dir.path().join("out.glb"), dir.path().join("again.glb"));
    let (code, _) = run(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0));
    let written = gltf_io::read(&out).unwrap();
    let turn = glam::Mat4::from_rotation_y(std::f32::consts::PI);
    for cam in n..n + 4 {
        let (before, after) = (turn * world(&json, cam), world(written.json(), cam));
        assert!(
            after.abs_diff_eq(before, 1e-5),
            "camera {cam}: {after} is not the turned {before}"
        );
    }
    assert!(
        written.json()["nodes"][body].get("translation").is_none()
            && written.json()["nodes"][body].get("rotation").is_none(),
        "the skinned body keeps its (identity) transform"
    );
    no_new_messages(&input, &out, "cameras");
    run(&[
        "normalize",
        out.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read(&out).unwrap() == std::fs::read(&again).unwrap(),
        "idempotent"
    );

    // The root camera animated in `walk`: the scene keeps its transform.
    let mut animated = json.clone();
    let walk = &mut animated["animations"][0];
    let sampler = walk["channels"][0]["sampler"].clone();
    let input_acc = walk["samplers"][sampler.as_u64().unwrap() as usize]["input"].clone();
    let output_acc = json["accessors"]
        .as_array()
        .unwrap()
        .iter()
        .position(|a| {
            a["type"] == "VEC3"
                && a["count"] == json["accessors"][input_acc.as_u64().unwrap() as usize]["count"]
        })
        .unwrap();
    let s = walk["samplers"].as_array().unwrap().len();
    walk["samplers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({ "input": input_acc, "output": output_acc }));
    walk["channels"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({ "sampler": s, "target": { "node": n, "path": "translation" } }));
    let input = dir.path().join("animated.vrm");
    std::fs::write(&input, common::join_glb(&animated, &bin)).unwrap();
    let (code, json_out) = run(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(0));
    let report = common::file_stage(&serde_json::from_str(&json_out).unwrap(), "normalize");
    let rest = &report["skeletons"][0]["rest"];
    assert_eq!(rest["scene_turned"], false);
    assert!(rest["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["code"] == "scene_kept"));
    let written = gltf_io::read(&out).unwrap();
    assert!(
        world(written.json(), n).abs_diff_eq(world(&animated, n), 1e-6),
        "camera kept"
    );
}

/// A base with shear (a non-uniform scale above a turned armature) cannot fold; the file is
/// still written, its nodes above as they were.
#[test]
fn a_sheared_base_is_kept_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/vrm0.vrm")).unwrap());
    let a = 30f32.to_radians() / 2.0;
    json["nodes"][0]["rotation"] = serde_json::json!([0.0, a.sin(), 0.0, a.cos()]);
    let n = json["nodes"].as_array().unwrap().len();
    json["nodes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({ "name": "Top", "scale": [1.2, 1, 1], "children": [0] }));
    json["scenes"][0]["nodes"][0] = n.into();
    let input = dir.path().join("sheared.vrm");
    std::fs::write(&input, common::join_glb(&json, &bin)).unwrap();
    let out = dir.path().join("out.vrm");
    let (code, _) = run(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0));
    let written = gltf_io::read(&out).unwrap();
    assert!(
        local(written.json(), n).abs_diff_eq(local(&json, n), 1e-7),
        "Top kept"
    );
}
