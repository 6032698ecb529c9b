//! Read and write speed of `gltf_io` on the fixtures and the real assets: per file and per MB.
//! Run with `cargo bench --bench io`. Each figure is the median of repeated runs (at least
//! 0.2 s or 5 runs per file); writing is to memory (`Document::to_parts`) plus GLB framing, so
//! disk speed does not enter.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

mod common;

use skelnorm::gltf_io;
use std::path::PathBuf;
use std::time::Duration;

fn files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in [root.join("fixtures"), root.join("../shared/assets")] {
        if !dir.is_dir() {
            eprintln!("skipping {}: absent", dir.display());
            continue;
        }
        for e in walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
        {
            let p = e.into_path();
            if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("gltf" | "glb" | "vrm" | "vrma")
            ) {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn median(f: impl FnMut()) -> Duration {
    common::median(5, Duration::from_millis(200), f)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!(
        "{:<48} {:>9} {:>6} {:>10} {:>10} {:>9} {:>9}",
        "file", "KiB", "bones", "read ms", "write ms", "read MB/s", "write MB/s"
    );
    let (mut total_bytes, mut total_read, mut total_write) = (0u64, Duration::ZERO, Duration::ZERO);
    for path in files() {
        let bytes = std::fs::read(&path).expect("read file");
        let res = gltf_io::Resources::Folder(path.parent().expect("folder").to_path_buf());
        let doc = gltf_io::read_bytes(&bytes, &path, &res).expect("file reads");
        let read = median(|| {
            std::hint::black_box(gltf_io::read_bytes(&bytes, &path, &res).expect("reads"));
        });
        let write = median(|| {
            std::hint::black_box(doc.to_parts(None).expect("writes"));
        });
        let mb = bytes.len() as f64 / 1e6;
        let bones: usize = doc.model.skeletons.iter().map(|s| s.bones.len()).sum();
        let name = path.file_name().expect("name").to_string_lossy();
        println!(
            "{:<48} {:>9.1} {:>6} {:>10.3} {:>10.3} {:>9.0} {:>9.0}",
            name,
            bytes.len() as f64 / 1024.0,
            bones,
            read.as_secs_f64() * 1e3,
            write.as_secs_f64() * 1e3,
            mb / read.as_secs_f64(),
            mb / write.as_secs_f64()
        );
        total_bytes += bytes.len() as u64;
        total_read += read;
        total_write += write;
    }
    let mb = total_bytes as f64 / 1e6;
    println!(
        "all files: {:.2} MB, read {:.2} ms ({:.0} MB/s), write {:.2} ms ({:.0} MB/s)",
        mb,
        total_read.as_secs_f64() * 1e3,
        mb / total_read.as_secs_f64(),
        total_write.as_secs_f64() * 1e3,
        mb / total_write.as_secs_f64()
    );
}
