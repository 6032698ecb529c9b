//! Issue 6 (chain retargeting): ground-truth pairs of fixture rigs that make the same motion and
//! differ in proportions (legs ×1.3), spine bone count (2 vs 5), twist bones and rest pose (A vs
//! T); the real assets; the runtime API.

mod common;

use skelnorm::check::retarget::{retarget as measure, RetargetCheck};
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, BoneMap, MapOptions};
use skelnorm::model::Model;
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
use skelnorm::retarget::{retarget_clip, RetargetOptions, Rig};
use std::path::Path;

/// A file normalized in memory, with the map of its first skeleton.
struct Normalized {
    model: Model,
    map: BoneMap,
}

fn normalized(path: &Path) -> Normalized {
    let profile = Profile::humanoid();
    let mut doc = gltf_io::read(path).unwrap();
    normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
    let map = map_skeleton(&doc.model.skeletons[0], profile, &MapOptions::default());
    Normalized {
        model: doc.model,
        map,
    }
}

fn rig(n: &Normalized) -> Rig<'_> {
    Rig {
        skeleton: &n.model.skeletons[0],
        map: &n.map,
        profile: Profile::humanoid(),
    }
}

/// Retargets every clip of `src` onto `dst` and measures each.
fn run(src: &Normalized, dst: &Normalized, options: &RetargetOptions) -> Vec<(String, RetargetCheck)> {
    let (s, t) = (rig(src), rig(dst));
    src.model
        .clips
        .iter()
        .filter(|c| c.skeleton == 0)
        .map(|clip| {
            let r = retarget_clip(&s, clip, &t, 0, options).unwrap();
            let m = measure((&s, clip), (&t, &r.clip), &r.plan, options);
            (clip.name.clone(), m)
        })
        .collect()
}

fn fixture(name: &str) -> Normalized {
    normalized(&common::root().join("fixtures").join(name))
}

#[test]
fn print_pairs() {
    for (a, b) in [
        ("identity.gltf", "long_legs.glb"),
        ("spine2.glb", "spine5.glb"),
        ("spine5.glb", "spine2.glb"),
        ("identity.gltf", "ue_zup.glb"),
        ("mixamo.glb", "identity.gltf"),
    ] {
        let (s, t) = (fixture(a), fixture(b));
        for ik in [false, true] {
            let options = RetargetOptions {
                ik,
                ..RetargetOptions::default()
            };
            for (clip, m) in run(&s, &t, &options) {
                let bones = m
                    .chains
                    .iter()
                    .filter_map(|c| c.bones_deg.map(|d| (d, c.chain.clone())))
                    .fold((0.0f32, String::new()), |a, b| if b.0 > a.0 { b } else { a });
                let end = m
                    .chains
                    .iter()
                    .map(|c| (c.end_deg, c.chain.clone()))
                    .fold((0.0f32, String::new()), |a, b| if b.0 > a.0 { b } else { a });
                let eff = m
                    .effectors
                    .iter()
                    .filter(|e| e.bone.ends_with("Foot"))
                    .map(|e| (e.max_error, e.bone.clone()))
                    .fold((0.0f32, String::new()), |a, b| if b.0 > a.0 { b } else { a });
                let skate: Vec<String> = m
                    .skate
                    .iter()
                    .map(|s| format!("{}:{:.4}/{:.4}", s.bone, s.source * 100.0, s.target * 100.0))
                    .collect();
                eprintln!("{a} → {b} ik={ik} `{clip}`: bones {:.3}° ({}), end {:.3}° ({}), effector {:.3}% ({}), skate% {:?}, drift {:.1e}", bones.0, bones.1, end.0, end.1, eff.0 * 100.0, eff.1, skate, m.length_drift);
            }
        }
    }
}
