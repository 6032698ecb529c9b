//! Issue 19: a file whose clips have many keys (read on two threads until issue 44, one since:
//! see docs/speed.md). The model's clips are those of animation order with the keys the file
//! holds (checked against the `gltf` crate's own reader), of two broken animations the error
//! names the first, and keys compressed with `EXT_meshopt_compression` read as the plain ones.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;
#[path = "../benches/common/many_clips.rs"]
mod many_clips;

use skelnorm::gltf_io;
use skelnorm::model::{Clip, Model};
use std::path::{Path, PathBuf};

/// A GLB of `mixamo.glb` with resampled clips added: 5 animations, 82,680 sampler keys.
fn many_clips(dir: &Path) -> PathBuf {
    many_clips::write(dir, 1_000_000)
}

/// The clip of animation `a` in `model` (one skeleton: one clip per animation).
fn clip_of(model: &Model, a: usize) -> &Clip {
    let found: Vec<&Clip> = model
        .clips
        .iter()
        .filter(|c| c.source == Some(a as u32))
        .collect();
    assert_eq!(found.len(), 1, "animation {a}");
    found[0]
}

#[test]
fn clips_of_many_keys_are_the_files_in_animation_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = many_clips(dir.path());
    let bytes = std::fs::read(&path).unwrap();
    let doc = gltf_io::read(&path).expect("reads");
    let gltf = gltf::Gltf::from_slice(&bytes).expect("the gltf crate reads it");
    let blob = gltf.blob.as_deref().expect("a BIN chunk");
    let animations: Vec<_> = gltf.animations().collect();
    let keys: usize = animations
        .iter()
        .flat_map(|a| a.samplers())
        .map(|s| s.input().count())
        .sum();
    assert!(animations.len() >= 4 && keys >= 2 * 16_384, "{keys} keys");
    eprintln!("{} animations, {keys} sampler keys", animations.len());
    // Clips come in animation order.
    let sources: Vec<Option<u32>> = doc.model.clips.iter().map(|c| c.source).collect();
    let expected: Vec<Option<u32>> = (0..animations.len() as u32).map(Some).collect();
    assert_eq!(sources, expected);
    let skeleton = doc.model.skeleton(doc.model.clips[0].skeleton);
    let mut compared = 0;
    for (a, animation) in animations.iter().enumerate() {
        let clip = clip_of(&doc.model, a);
        assert_eq!(
            clip.name,
            animation.name().unwrap_or_default(),
            "animation {a}"
        );
        for channel in animation.channels() {
            let node = channel.target().node().index() as u32;
            let bone = skeleton
                .bones
                .iter()
                .position(|b| b.node == Some(node))
                .expect("every channel animates a bone");
            let reader = channel.reader(|_| Some(blob));
            let times: Vec<f32> = reader.read_inputs().expect("times").collect();
            let tracks = &clip.tracks[bone];
            use gltf::animation::util::ReadOutputs;
            match reader.read_outputs().expect("values") {
                ReadOutputs::Translations(v) => {
                    let t = tracks.translation.as_ref().expect("a translation track");
                    let v: Vec<[f32; 3]> = v.collect();
                    let got: Vec<[f32; 3]> = t.values.iter().map(|x| x.to_array()).collect();
                    assert_eq!((&t.times[..], got), (&times[..], v), "animation {a}");
                }
                ReadOutputs::Rotations(r) => {
                    let t = tracks.rotation.as_ref().expect("a rotation track");
                    let r: Vec<[f32; 4]> = r.into_f32().collect();
                    let got: Vec<[f32; 4]> = t.values.iter().map(|x| x.to_array()).collect();
                    assert_eq!((&t.times[..], got), (&times[..], r), "animation {a}");
                }
                ReadOutputs::Scales(v) => {
                    let t = tracks.scale.as_ref().expect("a scale track");
                    let v: Vec<[f32; 3]> = v.collect();
                    let got: Vec<[f32; 3]> = t.values.iter().map(|x| x.to_array()).collect();
                    assert_eq!((&t.times[..], got), (&times[..], v), "animation {a}");
                }
                ReadOutputs::MorphTargetWeights(_) => unreachable!("no morph targets"),
            }
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared} channels");
}

#[test]
fn of_two_broken_animations_the_first_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = many_clips(dir.path());
    let (json, bin) = common::split_glb(&std::fs::read(&path).unwrap());
    let count = json["animations"].as_array().unwrap().len();
    // Accessors of another type than a rotation's: translation outputs (VEC3), one for each
    // broken animation, so that the error tells which animation was read first.
    let vec3: Vec<usize> = json["accessors"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, a)| a["type"] == "VEC3" && a.get("min").is_none())
        .map(|(i, _)| i)
        .take(2)
        .collect();
    assert_eq!(vec3.len(), 2);
    for broken in [(1, count - 1), (2, 3), (count - 2, count - 1), (0, 1)] {
        let mut json = json.clone();
        for (a, wrong) in [(broken.0, vec3[0]), (broken.1, vec3[1])] {
            let animation = &mut json["animations"][a];
            let channel = animation["channels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["target"]["path"] == "rotation")
                .expect("a rotation channel")
                .clone();
            let s = channel["sampler"].as_u64().unwrap() as usize;
            animation["samplers"][s]["output"] = serde_json::json!(wrong);
        }
        let out = dir
            .path()
            .join(format!("broken_{}_{}.glb", broken.0, broken.1));
        std::fs::write(&out, common::join_glb(&json, &bin)).unwrap();
        let e = gltf_io::read(&out).expect_err("a rotation read from a VEC3 accessor");
        let text = e.to_string();
        assert!(
            text.contains(&format!("accessors[{}]: type VEC3 where VEC4", vec3[0])),
            "{broken:?}: {text}"
        );
    }
}

/// `glb` (JSON and BIN) with every animation's key times and values compressed by
/// `EXT_meshopt_compression` (ATTRIBUTES, no filter: lossless), the compressed bytes appended to
/// the BIN chunk and the plain ones zeroed (the views stay, as the extension's fallback).
fn compressed(json: &serde_json::Value, bin: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let mut json = json.clone();
    let mut bin = bin.to_vec();
    let mut accessors: Vec<usize> = Vec::new();
    for animation in json["animations"].as_array().unwrap() {
        for sampler in animation["samplers"].as_array().unwrap() {
            accessors.push(sampler["input"].as_u64().unwrap() as usize);
            accessors.push(sampler["output"].as_u64().unwrap() as usize);
        }
    }
    accessors.sort_unstable();
    accessors.dedup();
    for a in accessors {
        let accessor = &json["accessors"][a];
        let count = accessor["count"].as_u64().unwrap() as usize;
        let stride = match accessor["type"].as_str().unwrap() {
            "SCALAR" => 4,
            "VEC3" => 12,
            "VEC4" => 16,
            other => panic!("{other}"),
        };
        let v = accessor["bufferView"].as_u64().unwrap() as usize;
        let view = &json["bufferViews"][v];
        let at = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let plain = &bin[at..at + count * stride];
        let encoded = match stride {
            4 => meshopt::encode_vertex_buffer(elements::<4>(plain).as_slice()),
            12 => meshopt::encode_vertex_buffer(elements::<12>(plain).as_slice()),
            _ => meshopt::encode_vertex_buffer(elements::<16>(plain).as_slice()),
        }
        .unwrap();
        // The plain bytes zeroed: only the compressed ones hold the keys.
        bin[at..at + count * stride].fill(0);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        let offset = bin.len();
        bin.extend_from_slice(&encoded);
        json["bufferViews"][v]["extensions"] = serde_json::json!({
            "EXT_meshopt_compression": {
                "buffer": 0, "byteOffset": offset, "byteLength": encoded.len(),
                "byteStride": stride, "count": count, "mode": "ATTRIBUTES"
            }
        });
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    json["buffers"][0]["byteLength"] = serde_json::json!(bin.len());
    let used = json
        .as_object_mut()
        .unwrap()
        .entry("extensionsUsed")
        .or_insert(serde_json::json!([]));
    used.as_array_mut()
        .unwrap()
        .push(serde_json::json!("EXT_meshopt_compression"));
    (json, bin)
}

/// `bytes` as elements of `N` bytes.
fn elements<const N: usize>(bytes: &[u8]) -> Vec<[u8; N]> {
    bytes
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap())
        .collect()
}

#[test]
fn compressed_clips_of_many_keys_are_the_plain_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = many_clips(dir.path());
    let (json, bin) = common::split_glb(&std::fs::read(&path).unwrap());
    let (packed_json, packed_bin) = compressed(&json, &bin);
    assert!(packed_bin.len() > bin.len());
    let packed = dir.path().join("many_clips_meshopt.glb");
    std::fs::write(&packed, common::join_glb(&packed_json, &packed_bin)).unwrap();
    let plain = gltf_io::read(&path).expect("reads").model;
    let read = gltf_io::read(&packed)
        .expect("the compressed file reads")
        .model;
    assert_eq!(read.clips.len(), plain.clips.len());
    for (a, b) in read.clips.iter().zip(&plain.clips) {
        assert_eq!((&a.name, a.source), (&b.name, b.source));
        assert_eq!(a.tracks, b.tracks, "clip `{}`", a.name);
    }
}
