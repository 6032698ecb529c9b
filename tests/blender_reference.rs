//! Issue 15: FBX and BVH read as a real importer reads them. Blender 5 (`bpy`, installed by
//! `.ci/run` into `.tools/blender-venv`) imports the same file; every joint's world position at
//! every frame of every clip must agree with skelnorm's reading within 1e-4 of the height: the
//! shared FBX and BVH files, and FBX and BVH files that Blender itself exports from our fixtures.
//! Skips with a message when Blender is not installed.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::Vec3;
use serde_json::Value;
use skelnorm::gltf_io::Document;
use skelnorm::io::{read, ReadOptions};
use skelnorm::model::{Model, Pose, Transform};
use std::path::Path;

fn vec3(v: &Value) -> Vec3 {
    let a = v.as_array().unwrap();
    Vec3::new(
        a[0].as_f64().unwrap() as f32,
        a[1].as_f64().unwrap() as f32,
        a[2].as_f64().unwrap() as f32,
    )
}

/// The largest extent of a set of points along any axis.
fn height(points: &[Vec3]) -> f32 {
    let lo = points.iter().copied().fold(Vec3::INFINITY, Vec3::min);
    let hi = points.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
    (hi - lo).max_element()
}

/// The parent of every glTF node of `doc`.
fn parents(doc: &Document) -> Vec<Option<usize>> {
    let nodes = doc.json()["nodes"].as_array().cloned().unwrap_or_default();
    let mut out = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            out[c.as_u64().unwrap() as usize] = Some(i);
        }
    }
    out
}

/// The local transform of glTF node `node` at time `t` of animation `clip` (its static TRS where
/// the clip does not animate it; LINEAR keys, as skelnorm writes them).
fn node_at(doc: &Document, node: usize, clip: Option<&str>, t: f32) -> Transform {
    let json = &doc.json()["nodes"][node];
    let floats = |key: &str, n: usize| {
        json[key].as_array().map(|a| {
            a.iter()
                .take(n)
                .map(|v| v.as_f64().unwrap() as f32)
                .collect::<Vec<f32>>()
        })
    };
    let mut out = Transform {
        translation: floats("translation", 3).map_or(Vec3::ZERO, |v| Vec3::from_slice(&v)),
        rotation: floats("rotation", 4)
            .map_or(glam::Quat::IDENTITY, |v| glam::Quat::from_slice(&v)),
        scale: floats("scale", 3).map_or(Vec3::ONE, |v| Vec3::from_slice(&v)),
    };
    let Some(clip) = clip else { return out };
    let Some(anim) = doc.json()["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["name"] == clip)
    else {
        return out;
    };
    for ch in anim["channels"].as_array().unwrap() {
        if ch["target"]["node"].as_u64() != Some(node as u64) {
            continue;
        }
        let sampler = &anim["samplers"][ch["sampler"].as_u64().unwrap() as usize];
        let (times, _) = doc
            .accessor_floats(sampler["input"].as_u64().unwrap() as usize)
            .unwrap();
        let (values, width) = doc
            .accessor_floats(sampler["output"].as_u64().unwrap() as usize)
            .unwrap();
        let k = times.partition_point(|&x| x <= t).clamp(1, times.len()) - 1;
        let k1 = (k + 1).min(times.len() - 1);
        let u = if k1 > k {
            ((t - times[k]) / (times[k1] - times[k])).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let at = |i: usize| &values[i * width..(i + 1) * width];
        match ch["target"]["path"].as_str().unwrap() {
            "translation" => {
                out.translation = Vec3::from_slice(at(k)).lerp(Vec3::from_slice(at(k1)), u)
            }
            "rotation" => {
                out.rotation =
                    glam::Quat::from_slice(at(k)).slerp(glam::Quat::from_slice(at(k1)), u)
            }
            "scale" => out.scale = Vec3::from_slice(at(k)).lerp(Vec3::from_slice(at(k1)), u),
            _ => {}
        }
    }
    out
}

/// The world matrix of the nodes above skeleton bone 0 (its glTF parent chain) at time `t` of
/// `clip`: what the model keeps as the skeleton's base, with the clip's animation of those nodes.
fn base_at(
    doc: &Document,
    parents: &[Option<usize>],
    first_bone_node: usize,
    clip: Option<&str>,
    t: f32,
) -> glam::Mat4 {
    let mut m = glam::Mat4::IDENTITY;
    let mut at = parents[first_bone_node];
    while let Some(n) = at {
        m = node_at(doc, n, clip, t).to_mat4() * m;
        at = parents[n];
    }
    m
}

/// The comparison of one file: the largest difference relative to the height, how many joint
/// positions were compared, and the clips compared.
struct Agreement {
    max_rel: f32,
    worst: String,
    compared: usize,
    clips: usize,
}

/// Compares skelnorm's reading of `path` with Blender's import of it (`blender`, the JSON of
/// `blender_joints.py`): the rest, and every keyed clip at every sample.
fn agree(path: &Path, options: &ReadOptions, blender: &Value) -> Agreement {
    let doc = read(path, options).unwrap();
    let model: &Model = &doc.model;
    let mut out = Agreement {
        max_rel: 0.0,
        worst: String::new(),
        compared: 0,
        clips: 0,
    };
    for armature in blender["armatures"].as_array().unwrap() {
        let names: Vec<&str> = armature["bones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        // Our skeleton with most of these bones.
        let (k, skeleton) = model
            .skeletons
            .iter()
            .enumerate()
            .max_by_key(|(_, s)| {
                s.bones
                    .iter()
                    .filter(|b| names.contains(&b.name.as_str()))
                    .count()
            })
            .unwrap();
        let pairs: Vec<(usize, usize)> = names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                skeleton
                    .bones
                    .iter()
                    .position(|b| b.name == *n)
                    .map(|j| (i, j))
            })
            .collect();
        assert!(
            pairs.len() * 10 >= names.len() * 9,
            "{}: only {} of Blender's {} bones found in skeleton `{}`",
            path.display(),
            pairs.len(),
            names.len(),
            skeleton.name
        );
        let rest: Vec<Vec3> = armature["rest"]
            .as_array()
            .unwrap()
            .iter()
            .map(vec3)
            .collect();
        let h = height(&rest).max(1e-6);
        let mut check = |what: &str, ours: &[glam::Mat4], theirs: &[Value]| {
            for &(i, j) in &pairs {
                let d = ours[j].w_axis.truncate().distance(vec3(&theirs[i])) / h;
                out.compared += 1;
                if d > out.max_rel {
                    out.max_rel = d;
                    out.worst = format!("{what}, bone `{}`", names[i]);
                }
            }
        };
        // A BVH rest stands on the floor in skelnorm (the roots move up; their motion is
        // unchanged) and at the file's offsets in Blender: compare it relative to the first root.
        let mut ours_rest = skeleton.rest_world();
        if doc.converted.as_ref().is_some_and(|c| c.format == "BVH") {
            let (i, j) = pairs[0];
            let shift = rest[i] - ours_rest[j].w_axis.truncate();
            for m in &mut ours_rest {
                m.w_axis += shift.extend(0.0);
            }
        }
        check("rest", &ours_rest, armature["rest"].as_array().unwrap());
        let tree = parents(&doc);
        let first = skeleton.bones[0].node.unwrap() as usize;
        for clip in armature["clips"].as_array().unwrap() {
            if clip["keyed"] == false {
                continue;
            }
            let name = clip["name"].as_str().unwrap();
            let take = clip["take"].as_str().unwrap_or(name);
            let ours = model
                .clips
                .iter()
                .filter(|c| c.skeleton.index() == k)
                .find(|c| {
                    // Blender names actions `OBJECT|TAKE` (`OBJECT|TAKE|LAYER` for a named layer).
                    c.name == take
                        || c.name == name
                        || take.starts_with(&format!("{}|", c.name))
                        || name.ends_with(&format!("|{}", c.name))
                })
                .unwrap_or_else(|| panic!("{}: no clip for Blender's `{name}`", path.display()));
            out.clips += 1;
            let times = clip["times"].as_array().unwrap();
            let t0 = times[0].as_f64().unwrap() as f32;
            for (sample, t) in times.iter().enumerate() {
                let t = t.as_f64().unwrap() as f32 - t0;
                // The skeleton's base as the clip animates it (an armature object that moves).
                let base = base_at(&doc, &tree, first, Some(&ours.name), t);
                let below = skeleton.base.inverse();
                let world: Vec<glam::Mat4> = Pose::sample(skeleton, ours, t)
                    .world(skeleton)
                    .iter()
                    .map(|w| base * below * *w)
                    .collect();
                let what = format!("clip `{}` at {t:.3} s", ours.name);
                check(&what, &world, clip["positions"][sample].as_array().unwrap());
            }
        }
    }
    out
}

fn assert_agrees(path: &Path, options: &ReadOptions) {
    let Some(blender) = common::blender_joints(path) else {
        return;
    };
    let a = agree(path, options, &blender);
    println!(
        "{}: {} joint positions in {} clips, largest difference {:.2e} of the height ({})",
        path.display(),
        a.compared,
        a.clips,
        a.max_rel,
        a.worst
    );
    assert!(a.compared > 0, "{}: nothing compared", path.display());
    assert!(
        a.max_rel <= 1e-4,
        "{}: {:.2e} of the height at {}",
        path.display(),
        a.max_rel,
        a.worst
    );
}

#[cfg(feature = "fbx")]
#[test]
fn shared_fbx_files_read_as_blender_reads_them() {
    if common::blender().is_none() {
        return;
    }
    for rel in [
        "fbx/RiggedFigure_blender.fbx",
        "fbx/quaternius_Male_Casual.fbx",
        "fbx/cmu_07_01_isaacgym.fbx",
        "fbx/ufbx_maya_human_ik_7400_binary.fbx",
        "fbx/ufbx_maya_kenney_character_7700_binary.fbx",
        "fbx/ufbx_blender_293_barbarian_7400_binary.fbx",
        "fbx/Fox_blender.fbx",
    ] {
        if let Some(path) = common::asset(rel) {
            assert_agrees(&path, &ReadOptions::default());
        }
    }
}

#[cfg(feature = "fbx")]
#[test]
fn fbx_files_blender_exports_from_our_fixtures_read_as_blender_reads_them() {
    if common::blender().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for name in ["mixamo", "blender", "ue_zup"] {
        let fbx = dir.path().join(format!("{name}.fbx"));
        common::blender_export(
            &common::root().join(format!("fixtures/{name}.glb")),
            &fbx,
            None,
        )
        .unwrap();
        assert_agrees(&fbx, &ReadOptions::default());
    }
}

/// BVH has no unit: both read the file's own numbers (`--bvh-scale 1`).
#[test]
fn bvh_files_read_as_blender_reads_them() {
    if common::blender().is_none() {
        return;
    }
    let unscaled = ReadOptions {
        bvh_scale: Some(1.0),
    };
    if let Some(path) = common::asset("bvh/cmu_131_03_maxfriendly.bvh") {
        assert_agrees(&path, &unscaled);
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, clip) in [("mixamo", "walk"), ("blender", "wave")] {
        let bvh = dir.path().join(format!("{name}_{clip}.bvh"));
        common::blender_export(
            &common::root().join(format!("fixtures/{name}.glb")),
            &bvh,
            Some(clip),
        )
        .unwrap();
        assert_agrees(&bvh, &unscaled);
    }
    // A BVH skelnorm writes: Blender imports it, as skelnorm reads it back.
    let bvh = dir.path().join("skelnorm_walk.bvh");
    let out = common::skelnorm(&[
        "convert",
        common::root().join("fixtures/mixamo.glb").to_str().unwrap(),
        bvh.to_str().unwrap(),
        "--clip",
        "walk",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_agrees(&bvh, &unscaled);
}
