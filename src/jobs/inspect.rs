//! `inspect` and `map` over files: read the input, look at it, return what was seen. Neither
//! writes the input's model; `map` returns the bone-map file's text for the caller to write.

use super::JobError;
use crate::inspect::inspect;
use crate::io::ReadOptions;
use crate::mapping::{map_in_model, BoneMapFile, MapOptions, MapReport};
use crate::model::SkeletonId;
use crate::profile::Profile;
use crate::report::{FailureKind, FileReport, InspectReport, Status};
use std::path::Path;

/// What [`inspect_file`] saw.
#[derive(Debug)]
pub struct Inspected {
    /// The input as read (size, reader warnings).
    pub file: FileReport,
    /// Its format, extensions, skeletons and clips.
    pub report: InspectReport,
}

/// Reads `input` and tells what it holds. What `inspect` shows needs no key values: they are
/// checked as every command checks them (the same errors and warnings), then let go, as
/// `convert` does.
pub fn inspect_file(input: &Path, read: &ReadOptions) -> Result<Inspected, JobError> {
    let doc = crate::io::read_to_copy(input, read)?;
    let extensions_used = doc
        .json_member("extensionsUsed")
        .and_then(|e| e.as_array())
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_str().map(str::to_string))
        .collect();
    Ok(Inspected {
        file: FileReport::read(input, doc.warnings()),
        report: InspectReport {
            format: doc.format(),
            converted: doc.converted().cloned(),
            extensions_used,
            inspection: inspect(doc.model_without_values()),
        },
    })
}

/// One file to map.
#[derive(Debug, Clone, Copy)]
pub struct MapFile<'a> {
    /// The input: .gltf, .glb, .vrm, .vrma, .fbx or .bvh.
    pub input: &'a Path,
    /// How the input is read.
    pub read: &'a ReadOptions,
    /// Map only this skeleton (by index, as `inspect` lists them).
    pub skeleton: Option<usize>,
    /// Accept a map that lacks required bones.
    pub allow_partial: bool,
    /// Make the bone-map file's text (then exactly one skeleton must be chosen).
    pub bone_map_file: bool,
}

/// What [`map_file`] found.
#[derive(Debug)]
pub struct BoneMaps {
    /// The input's report with its `map` part, settled; refused when a map lacks required bones
    /// and partial maps are not accepted.
    pub file: FileReport,
    /// Per skeleton chosen, its map.
    pub reports: Vec<MapReport>,
    /// Why the maps are refused (naming the file), when they are.
    pub refusal: Option<String>,
    /// The editable bone-map file (RON) of the one skeleton chosen, when asked for.
    pub bone_map_file: Option<String>,
}

/// Maps each skeleton of `job.input` (or the one chosen) to `profile`.
pub fn map_file(
    job: &MapFile,
    profile: &Profile,
    options: &MapOptions,
) -> Result<BoneMaps, JobError> {
    let file = job.input;
    let doc = super::read(file, job.read)?;
    let model = &doc.model;
    let chosen: Vec<SkeletonId> = match job.skeleton {
        Some(k) => vec![super::skeleton_id(file, model, k)?],
        None => model.skeleton_ids().collect(),
    };
    if chosen.is_empty() {
        return Err(JobError::refused(format!(
            "{}: has no skeleton to map",
            file.display()
        )));
    }
    if job.bone_map_file && chosen.len() != 1 {
        return Err(JobError::Usage(format!(
            "{}: has {} skeletons; choose one with --skeleton to write a bone map",
            file.display(),
            chosen.len()
        )));
    }
    let maps: Vec<_> = chosen
        .iter()
        .map(|&k| map_in_model(model, k, profile, options))
        .collect();
    let reports: Vec<MapReport> = chosen
        .iter()
        .zip(&maps)
        .map(|(&k, m)| m.report(model.skeleton(k), profile))
        .collect();
    let partial: Vec<String> = reports
        .iter()
        .filter(|r| !r.missing_required.is_empty())
        .map(|r| {
            format!(
                "skeleton `{}` lacks {}",
                r.skeleton,
                r.missing_required.join(", ")
            )
        })
        .collect();
    let refusal = (!partial.is_empty() && !job.allow_partial).then(|| {
        format!(
            "{}: not a {} skeleton: {} (use --allow-partial to accept a partial map)",
            file.display(),
            profile.name,
            partial.join("; ")
        )
    });
    let mut f = FileReport::new(file.display().to_string());
    f.add_reader_warnings(&doc.warnings);
    f.set_map(&reports);
    f.settle();
    if let Some(why) = &refusal {
        (f.status, f.failure, f.error) = (
            Status::Refused,
            Some(FailureKind::Refused),
            Some(why.clone()),
        );
    }
    let bone_map_file = match (job.bone_map_file, chosen.as_slice()) {
        (true, [k]) => Some(BoneMapFile::write_ron(
            &maps[0],
            model.skeleton(*k),
            profile,
        )),
        _ => None,
    };
    Ok(BoneMaps {
        file: f,
        reports,
        refusal,
        bone_map_file,
    })
}
