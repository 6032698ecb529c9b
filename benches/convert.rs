//! FBX → GLB and BVH → GLB speed on the shared files, beside Blender 5's import of the same file
//! (issue 15: an FBX must convert faster than Blender imports it). Per file: the conversion in
//! memory (`io::read`, then the GLB built by `Document::to_parts`) in ms and MB/s of input, the
//! whole `skelnorm convert IN OUT.glb` process, and Blender's import operator alone (from
//! `tests/tools/blender_joints.py`, when `.tools/blender-venv` has `bpy`). Medians.
//! Run with `cargo bench --bench convert`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn files() -> Vec<PathBuf> {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets");
    let mut out: Vec<PathBuf> = ["fbx", "bvh"]
        .iter()
        .flat_map(|d| std::fs::read_dir(assets.join(d)).into_iter().flatten())
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| skelnorm::io::is_supported(p))
        .collect();
    out.sort();
    out
}

/// Blender's import time of `path` in seconds (the operator alone), if Blender is installed.
fn blender_import(path: &Path) -> Option<f64> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".tools/blender-venv/bin/python");
    if !python.is_file() {
        return None;
    }
    let dir = tempfile::tempdir().ok()?;
    let json = dir.path().join("j.json");
    let ok = Command::new(&python)
        .arg(root.join("tests/tools/blender_joints.py"))
        .arg(path)
        .arg(&json)
        .output()
        .ok()?
        .status
        .success();
    if !ok {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).ok()?).ok()?;
    v["import_seconds"].as_f64()
}

fn main() {
    let files = files();
    if files.is_empty() {
        eprintln!("skipping: ../shared/assets has no FBX or BVH files");
        return;
    }
    let exe = env!("CARGO_BIN_EXE_skelnorm");
    let out = tempfile::tempdir().unwrap();
    println!(
        "{:48} {:>8} {:>10} {:>9} {:>11} {:>12} {:>8}",
        "file", "MB", "in memory", "MB/s", "process", "Blender", "ratio"
    );
    for path in files {
        let mb = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
        let read = skelnorm::io::ReadOptions::default();
        if skelnorm::io::read(&path, &read).is_err() {
            println!("{:48} unreadable", path.display());
            continue;
        }
        let memory = common::median(5, Duration::from_millis(300), || {
            let doc = skelnorm::io::read(&path, &read).unwrap();
            std::hint::black_box(doc.to_parts(None).unwrap());
        });
        let glb = out.path().join("out.glb");
        let process = common::median(5, Duration::from_millis(300), || {
            let t = Instant::now();
            let ok = Command::new(exe)
                .arg("convert")
                .arg(&path)
                .arg(&glb)
                .status()
                .unwrap()
                .success();
            assert!(ok, "convert {}", path.display());
            std::hint::black_box(t);
        });
        let blender = blender_import(&path);
        let name = path.file_name().unwrap().to_string_lossy();
        println!(
            "{name:48} {mb:>8.3} {:>8.2} ms {:>9.1} {:>8.2} ms {:>12} {:>8}",
            memory.as_secs_f64() * 1e3,
            mb / memory.as_secs_f64(),
            process.as_secs_f64() * 1e3,
            blender.map_or("-".into(), |s| format!("{:.1} ms", s * 1e3)),
            blender.map_or("-".into(), |s| format!("{:.1}×", s / process.as_secs_f64())),
        );
    }
}
