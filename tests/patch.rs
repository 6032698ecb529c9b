//! Writing a changed model back (issue 2): renamed bones, new rests, new inverse bind matrices,
//! changed and removed clips land in the file, re-read exactly, leave no orphaned accessors,
//! and keep the file valid; everything else in the JSON is untouched.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Mat4, Quat};
use skelnorm::gltf_io;

#[test]
fn model_changes_are_written_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    for fixture in ["mixamo.glb", "identity.gltf", "vrm0.vrm"] {
        let mut doc = gltf_io::read(&common::root().join("fixtures").join(fixture)).unwrap();
        let accessors_before = doc.json()["accessors"].as_array().unwrap().len();
        let s = &mut doc.model.skeletons[0];
        s.bones[1].name = "Renamed".into();
        let turn = Quat::from_rotation_y(0.25);
        s.bones[2].rest.rotation *= turn;
        let ibms_before = s.skins[0].inverse_bind_matrices.clone();
        for m in &mut s.skins[0].inverse_bind_matrices {
            *m = Mat4::from_quat(turn) * *m;
        }
        let clip = doc
            .model
            .clips
            .iter_mut()
            .find(|c| c.name == "walk")
            .unwrap();
        let track = clip
            .tracks
            .iter_mut()
            .find_map(|t| t.rotation.as_mut())
            .unwrap();
        std::sync::Arc::make_mut(&mut track.values)[0] *= turn;
        doc.model.clips.retain(|c| c.name != "idle");
        let out = dir.path().join(format!("patched-{fixture}"));
        doc.write(&out).unwrap();
        let back = gltf_io::read(&out).unwrap();
        // Removing an animation renumbers the ones after it: compare clips without their index.
        let unindexed = |m: &skelnorm::model::Model| {
            let mut m = m.clone();
            m.clips.iter_mut().for_each(|c| c.source = None);
            m
        };
        assert_eq!(
            unindexed(&back.model),
            unindexed(&doc.model),
            "{fixture}: patched model does not read back"
        );
        assert_ne!(
            back.model.skeletons[0].skins[0].inverse_bind_matrices,
            ibms_before
        );
        assert!(back.json()["animations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["name"] != "idle"));
        // Old IBM and idle accessors are gone; the walk clip reuses every unchanged sampler.
        let accessors_after = back.json()["accessors"].as_array().unwrap().len();
        assert!(
            accessors_after < accessors_before,
            "{fixture}: {accessors_after} accessors, was {accessors_before}"
        );
        assert_eq!(
            back.json()["meshes"],
            doc.json()["meshes"],
            "{fixture}: meshes changed"
        );
        assert_eq!(
            back.json()["extensions"],
            doc.json()["extensions"],
            "{fixture}: extensions changed"
        );
        if let Some(errors) = common::validator_errors(&out) {
            assert_eq!(errors, 0, "{fixture}: patched output has validator errors");
        }
    }
}

#[test]
fn unchanged_documents_are_written_byte_for_byte_in_json() {
    let doc = gltf_io::read(&common::root().join("fixtures/ue_zup.glb")).unwrap();
    let (json, _) = doc.to_parts(None).unwrap();
    assert_eq!(json["nodes"], doc.json()["nodes"]);
    assert_eq!(json["animations"], doc.json()["animations"]);
    assert_eq!(json["accessors"], doc.json()["accessors"]);
}

mod properties {
    use super::common;
    use glam::{Mat4, Quat, Vec3};
    use proptest::prelude::*;
    use skelnorm::gltf_io;

    fn quat() -> impl Strategy<Value = Quat> {
        (-3.0f32..3.0, -1.5f32..1.5, -3.0f32..3.0)
            .prop_map(|(a, b, c)| Quat::from_euler(glam::EulerRot::YXZ, a, b, c))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Any edit of rests, inverse bind matrices and keys writes and reads back exactly.
        #[test]
        fn edits_read_back_exactly(
            fixture in prop::sample::select(vec!["mixamo.glb", "ue_zup.glb", "blender.glb", "mixamo_meshopt.glb", "identity.gltf"]),
            bone in 0usize..60,
            turn in quat(),
            shift in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            key in 0usize..4,
        ) {
            let mut doc = gltf_io::read(&common::root().join("fixtures").join(fixture)).unwrap();
            let s = &mut doc.model.skeletons[0];
            let b = bone % s.bones.len();
            s.bones[b].rest.rotation = (s.bones[b].rest.rotation * turn).normalize();
            s.bones[b].rest.translation += Vec3::from(shift);
            for m in &mut s.skins[0].inverse_bind_matrices {
                *m = Mat4::from_quat(turn) * *m;
            }
            for clip in &mut doc.model.clips {
                if let Some(t) = clip.tracks.iter_mut().find_map(|t| t.rotation.as_mut()) {
                    // A key's value, not a tangent (tangents may be zero).
                    let per_key = t.values.len() / t.times.len();
                    let k = (key % t.times.len()) * per_key + per_key / 2;
                    let values = std::sync::Arc::make_mut(&mut t.values);
                    values[k] = (values[k] * turn).normalize();
                }
            }
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join(format!("edited-{fixture}"));
            doc.write(&out).unwrap();
            let back = gltf_io::read(&out).unwrap();
            prop_assert_eq!(&back.model, &doc.model);
            if let Some(errors) = common::validator_errors(&out) {
                let before = common::validator_errors(&common::root().join("fixtures").join(fixture)).unwrap();
                prop_assert!(errors <= before, "{} errors after editing {}", errors, fixture);
            }
        }
    }
}

/// A document that let go of its parsed JSON (kept as text while the stages run) writes the
/// same file, changed or not, and still answers `json()` as read.
#[test]
fn letting_go_of_the_json_writes_the_same_file() {
    for fixture in ["mixamo.glb", "identity.gltf", "vrm0.vrm", "blender.glb"] {
        let path = common::root().join("fixtures").join(fixture);
        for change in [false, true] {
            let mut held = gltf_io::read(&path).unwrap();
            if change {
                let s = &mut held.model.skeletons[0];
                s.bones[1].name = "Renamed".into();
                s.bones[2].rest.rotation *= Quat::from_rotation_y(0.25);
                let clip = &mut held.model.clips[0];
                let track = clip
                    .tracks
                    .iter_mut()
                    .find_map(|t| t.rotation.as_mut())
                    .unwrap();
                std::sync::Arc::make_mut(&mut track.values)[0] *= Quat::from_rotation_x(0.5);
            }
            let mut text = held.clone();
            text.let_go_of_json();
            let (a, b) = (held.to_parts(None).unwrap(), text.to_parts(None).unwrap());
            assert_eq!(a, b, "{fixture} (changed: {change})");
            assert_eq!(text.json(), held.json(), "{fixture}");
            // Once parsed again, it is kept and writes the same.
            assert_eq!(text.to_parts(None).unwrap(), a, "{fixture}");
        }
    }
}

/// A GLB whose JSON reading changed (an image file beside it embedded: new buffers and views)
/// lets go of the JSON it holds, not of the file's JSON chunk: it writes the same file and
/// answers `json()` as read.
#[test]
fn a_glb_with_an_embedded_image_lets_go_of_the_json_as_read() {
    let src = std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap();
    let len = u32::from_le_bytes(src[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&src[20..20 + len]).unwrap();
    json["images"] = serde_json::json!([{ "uri": "skin.png" }]);
    let mut text = serde_json::to_vec(&json).unwrap();
    text.resize(text.len().next_multiple_of(4), b' ');
    let bin = &src[20 + len..];
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend(((20 + text.len() + bin.len()) as u32).to_le_bytes());
    glb.extend((text.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&text);
    glb.extend(bin);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("with_image.glb");
    std::fs::write(&path, glb).unwrap();
    std::fs::write(dir.path().join("skin.png"), b"\x89PNG\r\n\x1a\n not really").unwrap();
    let held = gltf_io::read(&path).unwrap();
    assert!(held.json()["images"][0].get("bufferView").is_some());
    let mut let_go = held.clone();
    let_go.let_go_of_json();
    assert_eq!(let_go.json(), held.json());
    let mut let_go = held.clone();
    let_go.let_go_of_json();
    assert_eq!(let_go.to_parts(None).unwrap(), held.to_parts(None).unwrap());
}
