//! Normalization speed beside plain conversion, per file: read + write to memory (`convert`)
//! against read + map + rest fix + strip + rename + write (`normalize`, without the optional
//! measurements); the stages in memory (`stages`: map + rest + strip + rename), and track
//! stripping and renaming alone; the stages per bone-sample (one key of one bone channel, or one
//! bone when a file has no clips); then, on the generated many-clip GLBs, the skin check alone
//! (`-- --many-clips` runs only that part). Run with `cargo bench --bench normalize`; each figure is a
//! median.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

mod common;
#[path = "common/many_clips.rs"]
mod many_clips;

use skelnorm::check;
use skelnorm::gltf_io::{read_bytes, Resources};
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::SkeletonId;
use skelnorm::pipeline::{normalize, NormalizeOptions, Stages};
use skelnorm::profile::Profile;
use skelnorm::rename::{rename, RenameOptions};
use skelnorm::tracks::{strip, TrackOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn median(f: impl FnMut()) -> Duration {
    common::median(10, Duration::from_millis(300), f)
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "vrm"))
        .collect();
    let assets = root.join("../shared/assets");
    for dir in ["khronos", "quaternius", "threejs", "vrm"] {
        if let Ok(rd) = std::fs::read_dir(assets.join(dir)) {
            v.extend(rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "glb" || e == "vrm" || e == "vrma")
            }));
        }
    }
    v.sort();
    v
}

fn main() {
    let profile = Profile::humanoid();
    // `cargo bench --bench normalize -- --many-clips`: only the generated many-clip files.
    if std::env::args().any(|a| a == "--many-clips") {
        many_clip_stages(profile);
        return;
    }
    let options = NormalizeOptions::default();
    let rest_only = NormalizeOptions {
        stages: Stages {
            strip: false,
            rename: false,
            ..Stages::default()
        },
        ..NormalizeOptions::default()
    };
    println!(
        "{:34} {:>8} {:>11} {:>13} {:>10} {:>9} {:>10} {:>10}",
        "file",
        "samples",
        "convert µs",
        "normalize µs",
        "stages µs",
        "strip µs",
        "rename µs",
        "ns/sample"
    );
    for path in files() {
        let bytes = std::fs::read(&path).unwrap();
        let dir = Resources::Folder(path.parent().unwrap().to_path_buf());
        let doc = read_bytes(&bytes, &path, &dir).unwrap();
        let mut probe = doc.model.clone();
        if normalize(&mut probe, profile, &options).is_err() {
            continue; // not a humanoid
        }
        let keys: usize = doc
            .model
            .clips
            .iter()
            .flat_map(|c| &c.tracks)
            .map(|t| {
                t.translation.as_ref().map_or(0, |t| t.len())
                    + t.rotation.as_ref().map_or(0, |t| t.len())
                    + t.scale.as_ref().map_or(0, |t| t.len())
            })
            .sum();
        let samples = keys.max(doc.model.skeletons.iter().map(|s| s.bones.len()).sum());
        let convert = median(|| {
            let d = read_bytes(&bytes, &path, &dir).unwrap();
            std::hint::black_box(d.to_parts(None).unwrap());
        });
        let full = median(|| {
            let mut d = read_bytes(&bytes, &path, &dir).unwrap();
            normalize(&mut d.model, profile, &options).unwrap();
            std::hint::black_box(d.to_parts(None).unwrap());
        });
        let stages = median(|| {
            let mut m = doc.model.clone();
            std::hint::black_box(normalize(&mut m, profile, &options).unwrap());
        });
        // Strip and rename alone, on the rest-fixed model (minus the time to clone it).
        let mut fixed = doc.model.clone();
        let report = normalize(&mut fixed, profile, &rest_only).unwrap();
        let maps: Vec<_> = report
            .skeletons
            .iter()
            .filter(|s| s.skipped.is_none())
            .map(|s| {
                (
                    s.index,
                    map_skeleton(doc.model.skeleton(s.index), profile, &MapOptions::default()),
                )
            })
            .collect();
        let clone = median(|| {
            std::hint::black_box(fixed.clone());
        });
        let alone = |stage: &dyn Fn(
            &mut skelnorm::model::Model,
            SkeletonId,
            &skelnorm::mapping::BoneMap,
        )| {
            median(|| {
                let mut m = fixed.clone();
                for (k, map) in &maps {
                    stage(&mut m, *k, map);
                }
                std::hint::black_box(m);
            })
            .saturating_sub(clone)
        };
        let strip_t = alone(&|m, k, map| {
            strip(m, k, map, profile, &TrackOptions::default()).unwrap();
        });
        let rename_t = alone(&|m, k, map| {
            rename(m, k, map, profile, &RenameOptions::default()).unwrap();
        });
        let name = path.file_name().unwrap().to_string_lossy();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{name:34} {samples:>8} {:>11.1} {:>13.1} {:>10.1} {:>9.1} {:>10.1} {:>10.1}",
            us(convert),
            us(full),
            us(stages),
            us(strip_t),
            us(rename_t),
            stages.as_secs_f64() * 1e9 / samples as f64
        );
    }
    many_clip_stages(profile);
}

/// On the generated many-clip GLBs (3 and 30 MB, as `--bench process` uses): the stages
/// without measuring, the skin check alone (`check::skin`, which `normalize` runs by default),
/// both whole, and the check per skinning matrix compared.
fn many_clip_stages(profile: &Profile) {
    let dir = std::env::temp_dir().join("skelnorm_bench_normalize");
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "\n{:24} {:>10} {:>10} {:>12} {:>12} {:>11}",
        "many-clip file", "read ms", "stages ms", "skin check ms", "measured ms", "ns/matrix"
    );
    for bytes in [3_000_000, 30_000_000] {
        let path = many_clips::write(&dir, bytes);
        let data = std::fs::read(&path).unwrap();
        let res = Resources::Folder(dir.clone());
        let read = common::median(5, Duration::from_millis(500), || {
            std::hint::black_box(read_bytes(&data, &path, &res).unwrap());
        });
        let doc = read_bytes(&data, &path, &res).unwrap();
        let options = NormalizeOptions::default();
        let measure = NormalizeOptions {
            measure: true,
            ..NormalizeOptions::default()
        };
        let stages = common::median(5, Duration::from_millis(500), || {
            let mut m = doc.model.clone();
            std::hint::black_box(normalize(&mut m, profile, &options).unwrap());
        });
        let measured = common::median(5, Duration::from_millis(500), || {
            let mut m = doc.model.clone();
            std::hint::black_box(normalize(&mut m, profile, &measure).unwrap());
        });
        let mut after = doc.model.clone();
        normalize(&mut after, profile, &options).unwrap();
        let k = SkeletonId(0);
        let skin = check::skin(&doc.model, &after, k);
        let alone = common::median(5, Duration::from_millis(500), || {
            std::hint::black_box(check::skin(&doc.model, &after, k));
        });
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:24} {:>10.1} {:>10.1} {:>12.1} {:>12.1} {:>11.1}",
            path.file_name().unwrap().to_string_lossy(),
            ms(read),
            ms(stages),
            ms(alone),
            ms(measured),
            alone.as_secs_f64() * 1e9 / skin.matrices.max(1) as f64
        );
    }
}
