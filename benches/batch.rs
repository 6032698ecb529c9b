//! Batch speed: files per second over a generated library of 506 files (the fixtures copied
//! 46 times each into nested folders, as `tests/batch.rs` builds it), with 1 and 2 jobs, writing
//! outputs, with and without measuring the invariants. Run with `cargo bench --bench batch`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

use skelnorm::batch::{self, Existing, Job, Naming};
use skelnorm::settings::{ResolveError, Resolved, Settings};
use std::path::Path;
use std::time::Instant;

fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let names = [
        "mixamo.glb",
        "blender.glb",
        "vrm0.vrm",
        "ue_zup.glb",
        "identity.gltf",
        "long_spine.glb",
        "long_legs.glb",
        "spine2.glb",
        "spine5.glb",
        "mixamo_meshopt.glb",
        "blender_draco.glb",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    for i in 0..506 {
        let f = names[i % names.len()];
        let ext = Path::new(f).extension().unwrap().to_string_lossy();
        let p = lib.join(format!("set{}/group{}/file_{i:03}.{ext}", i % 4, i % 5));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::copy(fixtures.join(f), p).unwrap();
    }
    let files = batch::find_files(&lib);
    let bytes: u64 = files
        .iter()
        .map(|(_, f)| std::fs::metadata(f).unwrap().len())
        .sum();
    println!("{} files, {:.1} MB", files.len(), bytes as f64 / 1e6);
    for measure in [true, false] {
        let resolve = move |s: &Settings| -> Result<Resolved, ResolveError> {
            let mut s = s.clone();
            s.normalize.check = measure;
            s.resolve()
        };
        for jobs in [1, 2] {
            let out = tmp.path().join(format!("out-{jobs}-{measure}"));
            let job = Job {
                files: files.clone(),
                output: Some(out),
                jobs,
                existing: Existing::Overwrite,
                naming: Naming::default(),
                retarget_to: None,
                retarget_output: Default::default(),
                base: Settings::default(),
                resolve: &resolve,
                read: Default::default(),
                unsupported: Vec::new(),
                only: None,
            };
            let start = Instant::now();
            let report = batch::run(&job, &|_| {}).unwrap();
            let secs = start.elapsed().as_secs_f64();
            assert_eq!(report.summary.failed, 0);
            println!(
                "{jobs} job(s), {}: {:.2} s, {:.0} files/s, {:.2} ms per file",
                if measure {
                    "measuring the invariants"
                } else {
                    "without measuring"
                },
                secs,
                files.len() as f64 / secs,
                secs * 1e3 / files.len() as f64
            );
        }
    }
}
