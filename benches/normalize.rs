//! Normalization speed beside plain conversion, per file: read + write to memory (`convert`)
//! against read + map + rest fix + write (`normalize`, without the optional measurements), and the
//! rest fix alone per bone-sample (one key of one bone channel, or one bone when a file has no
//! clips). Run with `cargo bench --bench normalize`; each figure is a median.

mod common;

use skelnorm::gltf_io::{read_bytes, Resources};
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
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
    let options = NormalizeOptions::default();
    println!(
        "{:34} {:>10} {:>12} {:>12} {:>10} {:>12}",
        "file", "samples", "convert µs", "normalize µs", "rest µs", "ns/sample"
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
        let rest = median(|| {
            let mut m = doc.model.clone();
            std::hint::black_box(normalize(&mut m, profile, &options).unwrap());
        });
        let name = path.file_name().unwrap().to_string_lossy();
        println!(
            "{name:34} {samples:>10} {:>12.1} {:>12.1} {:>10.1} {:>12.1}",
            convert.as_secs_f64() * 1e6,
            full.as_secs_f64() * 1e6,
            rest.as_secs_f64() * 1e6,
            rest.as_secs_f64() * 1e9 / samples as f64
        );
    }
}
