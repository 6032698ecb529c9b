//! Finding skeletons (issue 2): two characters in one file are two skeletons, each addressable;
//! skins sharing joints are one; pointer-animation channels pass through untouched.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::{json, Value};
use skelnorm::gltf_io::{self, Resources};
use skelnorm::model::{OpaqueKind, SkeletonId};
use std::path::Path;

use common::{join_glb as join, split_glb as split};

fn mixamo() -> (Value, Vec<u8>) {
    split(&std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap())
}

#[test]
fn two_characters_are_two_skeletons() {
    let (mut j, bin) = mixamo();
    let n = j["nodes"].as_array().unwrap().len() as u64;
    let copies: Vec<Value> = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| {
            let mut c = node.clone();
            if let Some(kids) = c.get_mut("children").and_then(Value::as_array_mut) {
                for k in kids {
                    *k = (k.as_u64().unwrap() + n).into();
                }
            }
            if c.get("skin").is_some() {
                c["skin"] = 1.into();
            }
            c
        })
        .collect();
    let mut skin = j["skins"][0].clone();
    for k in skin["joints"].as_array_mut().unwrap() {
        *k = (k.as_u64().unwrap() + n).into();
    }
    j["nodes"].as_array_mut().unwrap().extend(copies);
    j["skins"].as_array_mut().unwrap().push(skin);
    let roots: Vec<Value> = j["scenes"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r.as_u64().unwrap() + n).into())
        .collect();
    j["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .extend(roots);
    let doc = gltf_io::read_bytes(&join(&j, &bin), Path::new("two.glb"), &Resources::None).unwrap();
    let s = &doc.model.skeletons;
    assert_eq!(s.len(), 2, "two separate skeletons");
    assert_eq!(s[0].bones.len(), s[1].bones.len());
    assert!(s[0].bones.iter().all(|b| b.node.unwrap() < n as u32));
    assert!(s[1].bones.iter().all(|b| b.node.unwrap() >= n as u32));
    assert_eq!((s[0].skins.len(), s[1].skins.len()), (1, 1));
    assert!(
        doc.model.clips.iter().all(|c| c.skeleton == SkeletonId(0)),
        "the clips animate the first character"
    );
    let info = skelnorm::inspect::inspect(&doc.model);
    assert_eq!(info.skeletons.len(), 2);
    assert_eq!(info.skeletons[1].glance.facing, "+Z");
}

#[test]
fn skins_sharing_joints_are_one_skeleton() {
    let Some([path]) = common::require(["quaternius/ModularMen_Casual.glb"]) else {
        return;
    };
    let doc = gltf_io::read(&path).unwrap();
    assert_eq!(doc.model.skeletons.len(), 1);
    assert_eq!(doc.model.skeletons[0].skins.len(), 4);
}

#[test]
fn pointer_channels_pass_through() {
    let (mut j, bin) = mixamo();
    j["materials"] =
        json!([{ "name": "skin", "pbrMetallicRoughness": { "baseColorFactor": [1, 1, 1, 1] } }]);
    j["meshes"][0]["primitives"][0]["material"] = 0.into();
    let walk = &mut j["animations"][0];
    let input = walk["samplers"][0]["input"].clone();
    let out = walk["samplers"][0]["output"].clone(); // VEC4 values double as a colour
    walk["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "input": input, "output": out }));
    let s = walk["samplers"].as_array().unwrap().len() - 1;
    let pointer = "/materials/0/pbrMetallicRoughness/baseColorFactor";
    walk["channels"].as_array_mut().unwrap().insert(
        1,
        json!({ "sampler": s, "target": { "path": "pointer", "extensions": { "KHR_animation_pointer": { "pointer": pointer } } } }),
    );
    j["extensionsUsed"] = json!(["KHR_animation_pointer"]);
    let doc = gltf_io::read_bytes(&join(&j, &bin), Path::new("ptr.glb"), &Resources::None).unwrap();
    let walk = doc.model.clips.iter().find(|c| c.name == "walk").unwrap();
    assert_eq!(walk.opaque.len(), 1);
    assert_eq!(walk.opaque[0].channel, 1);
    assert!(matches!(&walk.opaque[0].kind, OpaqueKind::Pointer { pointer: p } if p == pointer));
    // Unchanged: the channel is written back as it was. Changed clip: it is kept, with its sampler.
    let (same, _) = doc.to_parts(None).unwrap();
    assert_eq!(same["animations"], doc.json()["animations"]);
    let mut changed = doc.clone();
    let clip = changed
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
    std::sync::Arc::make_mut(&mut track.values)[0] = glam::Quat::IDENTITY;
    let (json, _) = changed.to_parts(None).unwrap();
    let anim = json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "walk")
        .unwrap();
    let kept: Vec<&Value> = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["target"]["path"] == "pointer")
        .collect();
    assert_eq!(kept.len(), 1);
    let sampler = &anim["samplers"][kept[0]["sampler"].as_u64().unwrap() as usize];
    assert!(sampler["output"].as_u64().is_some() && sampler.get("interpolation").is_none());
}
