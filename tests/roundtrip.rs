//! The lossless round trip (issue 2): for every fixture and real asset, `inspect` exits 0 and
//! `convert` to GLB and to glTF writes a file whose JSON equals the input's apart from buffer
//! layout, whose buffer views hold the same bytes, whose accessors decode to the same values,
//! and which has no more validator errors than the input.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::Value;
use skelnorm::gltf_io::{self, Document};
use std::path::Path;

/// The JSON without buffer layout: buffers, and where each view sits in them.
fn without_layout(doc: &Document) -> Value {
    let mut j = doc.json().clone();
    if let Some(o) = j.as_object_mut() {
        o.remove("buffers");
    }
    for v in j
        .get_mut("bufferViews")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let o = v.as_object_mut().expect("view");
        o.remove("buffer");
        o.remove("byteOffset");
        if let Some(m) = v
            .pointer_mut("/extensions/EXT_meshopt_compression")
            .and_then(Value::as_object_mut)
        {
            m.remove("buffer");
            m.remove("byteOffset");
        }
    }
    j
}

fn assert_same(input: &Document, output: &Path) {
    let out =
        gltf_io::read(output).unwrap_or_else(|e| panic!("re-reading {}: {e}", output.display()));
    assert_eq!(
        without_layout(input),
        without_layout(&out),
        "{}: JSON differs",
        output.display()
    );
    let views = input.json()["bufferViews"].as_array().map_or(0, Vec::len);
    for v in 0..views {
        assert_eq!(
            input.buffer_view_bytes(v),
            out.buffer_view_bytes(v),
            "{}: view {v} differs",
            output.display()
        );
    }
    let accessors = input.json()["accessors"].as_array().map_or(0, Vec::len);
    for a in 0..accessors {
        if let Ok(values) = input.accessor_floats(a) {
            let back = out.accessor_floats(a).expect("output accessor decodes");
            assert!(
                values
                    .0
                    .iter()
                    .zip(&back.0)
                    .all(|(x, y)| x.to_bits() == y.to_bits())
                    && values.0.len() == back.0.len(),
                "{}: accessor {a} differs",
                output.display()
            );
        }
    }
    assert_eq!(
        input.model,
        out.model,
        "{}: model differs",
        output.display()
    );
}

#[test]
fn inspect_and_convert_are_lossless_on_every_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = common::all_files();
    assert!(files.len() >= 7, "fixtures are missing");
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let f = file.to_str().unwrap();
        let inspect = common::skelnorm(&["inspect", f]);
        assert!(
            inspect.status.success(),
            "inspect {name}: {}",
            String::from_utf8_lossy(&inspect.stderr)
        );
        let json = common::skelnorm(&["inspect", "--json", f]);
        assert!(
            serde_json::from_slice::<Value>(&json.stdout).is_ok(),
            "inspect --json {name}"
        );
        let input = gltf_io::read(&file).unwrap();
        let before = common::validator_errors(&file);
        for ext in ["glb", "gltf"] {
            let out = dir.path().join(format!("{name}.{ext}"));
            let run = common::skelnorm(&["convert", f, out.to_str().unwrap()]);
            assert!(
                run.status.success(),
                "convert {name} to {ext}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
            assert_same(&input, &out);
            if let (Some(b), Some(a)) = (before, common::validator_errors(&out)) {
                assert!(
                    a <= b,
                    "{name} → {ext}: {a} validator errors, input had {b}"
                );
            }
            // three.js under Node cannot fetch `data:` URIs (no ProgressEvent): binary inputs only.
            // The shared three.js check sets no meshopt or Draco decoder, so it cannot load those.
            let used = input.json()["extensionsUsed"].to_string();
            let meshopt = used.contains("EXT_meshopt_compression")
                || used.contains("KHR_draco_mesh_compression");
            let binary = input.format == gltf_io::Format::Glb && !meshopt;
            if ext == "glb" && binary && !input.model.clips.is_empty() {
                if let Some(err) = common::three_check(&file, &out) {
                    assert!(
                        err <= 1e-6,
                        "{name}: three.js plays the copy differently ({err})"
                    );
                }
            }
        }
    }
}

#[test]
fn convert_refuses_to_overwrite_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("in.glb");
    std::fs::copy(common::root().join("fixtures/mixamo.glb"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let run = common::skelnorm(&["convert", copy.to_str().unwrap(), copy.to_str().unwrap()]);
    // Issue 17: a usage error (2), as `convert x.glb x.bvh`-style refusals already were; was 1.
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("inputs are never overwritten"));
    assert_eq!(before, std::fs::read(&copy).unwrap());
}

#[test]
fn convert_with_a_bad_output_extension_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.fbx");
    let f = common::root().join("fixtures/mixamo.glb");
    let run = common::skelnorm(&["convert", f.to_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(!out.exists());
}

#[test]
fn gltfpack_meshopt_file_decodes_to_the_same_motion() {
    use skelnorm::model::Pose;
    let read = |f: &str| {
        gltf_io::read(&common::root().join("fixtures").join(f))
            .unwrap()
            .model
    };
    let (plain, packed) = (read("mixamo.glb"), read("mixamo_meshopt.glb"));
    let (a, b) = (&plain.skeletons[0], &packed.skeletons[0]);
    assert_eq!(a.bones.len(), b.bones.len());
    let mut worst = 0f32;
    for clip in &plain.clips {
        let other = packed
            .clips
            .iter()
            .find(|c| c.name == clip.name)
            .expect("clip kept");
        for k in 0..=30 {
            let t = clip.duration() * k as f32 / 30.0;
            let (wa, wb) = (
                Pose::sample(a, clip, t).world(a),
                Pose::sample(b, other, t).world(b),
            );
            for (x, y) in wa.iter().zip(&wb) {
                worst = worst.max((x.w_axis - y.w_axis).length());
            }
        }
    }
    eprintln!("meshopt fixture: joints differ by at most {worst} m from the uncompressed rig");
    // gltfpack quantizes rotations to 16 bits and resamples splines: millimetres on a 1.8 m rig.
    assert!(
        worst < 0.01,
        "joints moved {worst} m after meshopt decoding"
    );
}
