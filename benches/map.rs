//! Auto-mapping speed: a generated 101-bone humanoid (twist, IK, end, long-spine, hair bones) and
//! every skeleton of the fixtures and real assets. Run with `cargo bench --bench map`; each
//! figure is the median of repeated runs (at least 0.3 s or 20 runs).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

mod common;

#[path = "../tests/conventions/mod.rs"]
mod conventions;

use conventions::rig::Parts;
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::Skeleton;
use skelnorm::profile::Profile;
use std::path::PathBuf;
use std::time::Duration;

fn median(f: impl FnMut()) -> Duration {
    common::median(20, Duration::from_millis(300), f)
}

fn report(name: &str, sk: &Skeleton) {
    let profile = Profile::humanoid();
    let options = MapOptions::default();
    let t = median(|| {
        std::hint::black_box(map_skeleton(std::hint::black_box(sk), profile, &options));
    });
    let n = sk.bones.len();
    println!(
        "{name:60} {n:4} bones  {:9.1} µs per skeleton  {:6.2} µs per bone",
        t.as_secs_f64() * 1e6,
        t.as_secs_f64() * 1e6 / n as f64
    );
}

fn main() {
    let parts = Parts {
        root: true,
        long_spine: true,
        twist: true,
        ik: true,
        ends: true,
        spine_bones: 0,
    };
    let mut joints = conventions::humanoid(parts);
    // Three hair strands of six bones: 101 bones in all.
    let head = conventions::pos(&joints, "head");
    for k in 0..3 {
        let mut parent = "head".to_string();
        for i in 0..6 {
            let id = format!("hair{k}_{i}");
            let p = head + glam::Vec3::new(k as f32 * 0.03 - 0.03, 0.1 - i as f32 * 0.04, -0.08);
            conventions::insert(&mut joints, &id, Some(&parent), &[], p);
            parent = id;
        }
    }
    let sk = conventions::skeleton(
        &joints,
        &|id| format!("mixamorig:{id}"),
        glam::Mat4::IDENTITY,
    );
    report("generated humanoid (all parts, Mixamo-like names)", &sk);
    let unnamed = conventions::skeleton(
        &joints,
        &|id| format!("joint{}", id.len() * 7919 % 1000),
        glam::Mat4::IDENTITY,
    );
    report("generated humanoid (meaningless names)", &unnamed);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for dir in [root.join("fixtures"), root.join("../shared/assets")] {
        if !dir.is_dir() {
            eprintln!("skipping {}: absent", dir.display());
            continue;
        }
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("gltf" | "glb" | "vrm" | "vrma")
                )
            })
            .collect();
        files.sort();
        for f in files {
            let Ok(doc) = skelnorm::gltf_io::read(&f) else {
                continue;
            };
            for sk in &doc.model.skeletons {
                report(
                    &f.strip_prefix(&root).unwrap_or(&f).display().to_string(),
                    sk,
                );
            }
        }
    }
}
