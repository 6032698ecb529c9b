//! The jobs on the fixtures: what they write, what they leave, and the exit-code row of each
//! failure.

use super::*;
use crate::pipeline::NormalizeOptions;
use crate::profile::Profile;
use crate::report::FailureKind;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn normalize(
    input: &Path,
    output: &Path,
    existing: Existing,
) -> Result<Outcome<Normalized>, JobError> {
    let job = NormalizeFile {
        input,
        output,
        read: &ReadOptions::default(),
        existing,
        skeleton: None,
    };
    let options = NormalizeOptions {
        measure: true,
        ..NormalizeOptions::default()
    };
    normalize_file(&job, &Profile::humanoid_owned(), &options)
}

#[test]
fn normalize_writes_the_output_and_reports_it_or_leaves_an_existing_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let Outcome::Written(done) =
        normalize(&fixture("mixamo.glb"), &out, Existing::Overwrite).unwrap()
    else {
        panic!("not written");
    };
    assert_eq!(done.report.normalized(), 1);
    assert!(done.report.skeletons[0].measured.is_some());
    assert_eq!(done.file.size_after, crate::gltf_io::stored_size(&out));
    let written = std::fs::read(&out).unwrap();
    // Skip leaves it, reporting the input as read; error refuses, naming it.
    let skipped = normalize(&fixture("blender.glb"), &out, Existing::Skip).unwrap();
    assert!(matches!(skipped, Outcome::Skipped(f) if f.size_before > 0));
    let refused = normalize(&fixture("blender.glb"), &out, Existing::Error).unwrap_err();
    assert!(matches!(&refused, JobError::Exists(p) if *p == out));
    assert_eq!(refused.kind(), FailureKind::File);
    assert_eq!(std::fs::read(&out).unwrap(), written);
}

#[test]
fn every_failure_has_its_row_of_the_exit_code_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let missing = normalize(&dir.path().join("none.glb"), &out, Existing::Overwrite).unwrap_err();
    assert_eq!(missing.kind(), FailureKind::File);
    let txt = normalize(
        &fixture("mixamo.glb"),
        &dir.path().join("out.txt"),
        Existing::Overwrite,
    );
    assert_eq!(txt.unwrap_err().kind(), FailureKind::Usage);
    let itself = normalize(
        &fixture("mixamo.glb"),
        &fixture("mixamo.glb"),
        Existing::Overwrite,
    );
    assert_eq!(itself.unwrap_err().kind(), FailureKind::Usage);
    let animal = normalize(&fixture("quadruped.glb"), &out, Existing::Overwrite).unwrap_err();
    assert_eq!(animal.kind(), FailureKind::Refused);
    let JobError::Refused { message, hint } = &animal else {
        panic!("not refused: {animal}");
    };
    assert!(message.contains("quadruped.glb"), "{message}");
    assert_eq!(*hint, Some(Hint::AllowPartial));
    assert!(!out.exists(), "a refused input writes nothing");
}
