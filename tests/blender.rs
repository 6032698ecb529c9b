//! Blender as the reference importer (issue 15), checked on itself: the scripts under
//! `tests/tools/` agree with each other, so a difference a reader test finds between skelnorm and
//! Blender is skelnorm's or Blender's, not the scripts' time or axis conventions. Skips (with a
//! message) when Blender's `bpy` is not installed in `.tools/blender-venv` (`.ci/run` installs it).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::Value;

/// Largest extent of the rest positions of an armature from `blender_joints.py`.
fn height(arm: &Value) -> f64 {
    let rest = arm["rest"].as_array().unwrap();
    (0..3)
        .map(|i| {
            let c = rest.iter().map(|p| p[i].as_f64().unwrap());
            c.clone().fold(f64::MIN, f64::max) - c.fold(f64::MAX, f64::min)
        })
        .fold(0.0, f64::max)
}

fn dist(a: &Value, b: &Value) -> f64 {
    (0..3)
        .map(|i| (a[i].as_f64().unwrap() - b[i].as_f64().unwrap()).abs())
        .fold(0.0, f64::max)
}

/// Blender's glTF import of a fixture and its FBX import of the FBX it exports from that fixture
/// put every joint at the same place, at rest and at every sampled time of every clip (the glTF
/// clip `walk` is the FBX take `Armature|walk`, its action `Armature|Armature|walk`), within
/// 1e-4 of the height.
#[test]
fn blender_fbx_export_matches_its_gltf_import() {
    let fixture = common::root().join("fixtures/mixamo.glb");
    let Some(gltf) = common::blender_joints(&fixture) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fbx = dir.path().join("mixamo.fbx");
    common::blender_export(&fixture, &fbx, None).unwrap();
    let from_fbx = common::blender_joints(&fbx).unwrap();
    let (a, b) = (&gltf["armatures"][0], &from_fbx["armatures"][0]);
    let tol = 1e-4 * height(a);
    let names = |arm: &Value| -> Vec<String> {
        let v = arm["bones"].as_array().unwrap();
        v.iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    let (na, nb) = (names(a), names(b));
    assert_eq!(na.len(), 52);
    let pairs: Vec<(usize, usize)> = na
        .iter()
        .enumerate()
        .map(|(i, n)| (i, nb.iter().position(|m| m == n).unwrap()))
        .collect();
    for still in ["rest", "unanimated"] {
        for &(i, j) in &pairs {
            let d = dist(&a[still][i], &b[still][j]);
            assert!(d < tol, "{still} {}: {d}", na[i]);
        }
    }
    let clips_a = a["clips"].as_array().unwrap();
    assert_eq!(clips_a.len(), 3);
    for ca in clips_a {
        let name = ca["name"].as_str().unwrap();
        let cb = b["clips"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["take"] == format!("Armature|{name}"))
            .unwrap_or_else(|| panic!("no take Armature|{name}"));
        let (ta, tb) = (
            ca["times"].as_array().unwrap(),
            cb["times"].as_array().unwrap(),
        );
        assert_eq!(ta.len(), tb.len(), "{name}: samples");
        for (k, (x, y)) in ta.iter().zip(tb).enumerate() {
            assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-6);
            for &(i, j) in &pairs {
                let d = dist(&ca["positions"][k][i], &cb["positions"][k][j]);
                assert!(d < tol, "{name} sample {k} {}: {d}", na[i]);
            }
        }
    }
}
