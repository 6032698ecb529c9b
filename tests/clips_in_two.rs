//! Issue 19: a file whose clips have many keys is read on two threads, each taking the next
//! animation not yet taken. Whatever thread reads an animation, the model's clips are those of
//! animation order with the keys the file holds (checked against the `gltf` crate's own
//! reader), and of two broken animations the error names the first, as a reading in order does.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

#[path = "../benches/common/many_clips.rs"]
mod many_clips;

use skelnorm::gltf_io;
use skelnorm::model::{Clip, Model};
use std::path::{Path, PathBuf};

/// A GLB of `mixamo.glb` with resampled clips added: 5 animations, 82,680 sampler keys,
/// above the 16,384 from which clips are read on two threads.
fn many_clips(dir: &Path) -> PathBuf {
    many_clips::write(dir, 1_000_000)
}

/// The JSON and binary chunks of a GLB.
fn chunks(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let len = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = len(12);
    let json = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = glb[bin_at + 8..bin_at + 8 + len(bin_at)].to_vec();
    (json, bin)
}

/// A GLB of `json` and `bin`.
fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
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
fn clips_read_on_two_threads_are_the_files_in_animation_order() {
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
    let (json, bin) = chunks(&std::fs::read(&path).unwrap());
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
        std::fs::write(&out, glb(&json, &bin)).unwrap();
        let e = gltf_io::read(&out).expect_err("a rotation read from a VEC3 accessor");
        let text = e.to_string();
        assert!(
            text.contains(&format!("accessors[{}]: type VEC3 where VEC4", vec3[0])),
            "{broken:?}: {text}"
        );
    }
}
