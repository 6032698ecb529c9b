//! `convert` over files: any input to glTF or GLB, written as read (a lossless round trip between
//! glTF containers), or one clip to BVH; and the BVH writing of `mirror` and `retarget`.

use super::{JobError, Outcome};
use crate::bvh_io::{self, BvhWriteOptions};
use crate::io::ReadOptions;
use crate::model::Model;
use crate::report::{ConvertReport, FileReport};
use std::path::Path;

/// One file to convert.
#[derive(Debug, Clone, Copy)]
pub struct ConvertFile<'a> {
    /// The input: .gltf, .glb, .vrm, .vrma, .fbx or .bvh; never modified.
    pub input: &'a Path,
    /// The output; its extension picks the format: .gltf, .glb, .vrm, .vrma, or .bvh.
    pub output: &'a Path,
    /// How the input is read.
    pub read: &'a ReadOptions,
    /// What to do when the output exists.
    pub existing: super::Existing,
    /// The clip a BVH output holds (needed when the input has more than one).
    pub clip: Option<&'a str>,
    /// How a BVH output is written.
    pub bvh: &'a BvhWriteOptions,
}

/// Whether `path` names a BVH output.
pub fn is_bvh(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("bvh"))
}

/// Converts `job.input` into `job.output`; returns the input's report with its `convert` part
/// (the formats, skeletons and clips), settled. Converting to glTF changes nothing in the model:
/// the input is read only to be written again as read (its keys checked, not kept); a BVH output
/// samples one clip of the model.
pub fn convert_file(job: &ConvertFile) -> Result<Outcome<FileReport>, JobError> {
    let output = job.output;
    if !is_bvh(output) {
        super::check_container(output)?;
    }
    super::check_not_input(job.input, output)?;
    let (mut file, converted, skeletons, clips) = if is_bvh(output) {
        let doc = crate::io::read_for_viewing(job.input, job.read)?;
        let mut file = FileReport::read(job.input, &doc.warnings);
        if !super::proceed(output, job.existing)? {
            return Ok(Outcome::Skipped(Box::new(file)));
        }
        let clip = write_bvh_clip(&BvhClip {
            input: job.input,
            model: &doc.model,
            output,
            clip: job.clip,
            options: job.bvh,
            document: Some(&doc),
        })?;
        file.wrote(output);
        let skeletons = doc.model.skeletons.len();
        (file, doc.converted.clone(), skeletons, vec![clip])
    } else {
        let doc = crate::io::read_to_copy(job.input, job.read)?;
        let mut file = FileReport::read(job.input, doc.warnings());
        if !super::proceed(output, job.existing)? {
            return Ok(Outcome::Skipped(Box::new(file)));
        }
        doc.write(output)?;
        file.wrote(output);
        let clips = doc.clip_names().map(str::to_string).collect();
        (file, doc.converted().cloned(), doc.skeletons(), clips)
    };
    file.convert = Some(ConvertReport {
        from: extension(job.input),
        to: extension(output),
        converted,
        skeletons,
        clips,
    });
    file.settle();
    Ok(Outcome::Written(file))
}

/// A path's extension in lower case (`glb`, `fbx`, ...), naming its format in reports.
fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// One clip of a model to write as BVH.
#[derive(Debug, Clone, Copy)]
pub struct BvhClip<'a> {
    /// The file the model was read from (named in errors; never written).
    pub input: &'a Path,
    /// The model holding the clip and its skeleton.
    pub model: &'a Model,
    /// The BVH file to write.
    pub output: &'a Path,
    /// The clip, by name; the only one when `None`.
    pub clip: Option<&'a str>,
    /// The document `model` was read from, unchanged, which holds the keys of the nodes above
    /// the skeleton (channels the model carries as opaque): with it, a clip that animates them
    /// is written with their motion folded into the roots; without it, refused.
    pub document: Option<&'a crate::gltf_io::Document>,
    /// How it is written.
    pub options: &'a BvhWriteOptions,
}

/// Writes one clip (with its skeleton) as BVH: the clip named, or the only one; returns its
/// name. A usage error when the clip does not exist or several could be meant, nothing to do
/// when the model has no clip.
pub fn write_bvh_clip(job: &BvhClip) -> Result<String, JobError> {
    let (input, model, output) = (job.input, job.model, job.output);
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    let chosen = match job.clip {
        Some(name) => model.clips.iter().find(|c| c.name == name).ok_or_else(|| {
            JobError::Usage(format!(
                "{}: no clip `{name}` (it has: {})",
                input.display(),
                names.join(", ")
            ))
        })?,
        None => match model.clips.as_slice() {
            [only] => only,
            [] => {
                return Err(JobError::Nothing(format!(
                    "{}: has no clip to write as BVH",
                    input.display()
                )))
            }
            _ => {
                return Err(JobError::Usage(format!(
                    "{}: has {} clips and a BVH file holds one; choose it with --clip (it has: {})",
                    input.display(),
                    names.len(),
                    names.join(", ")
                )))
            }
        },
    };
    super::check_not_input(input, output)?;
    let skeleton = model.skeleton(chosen.skeleton);
    let moves_base = chosen.opaque.iter().any(|o| {
        matches!(&o.kind, crate::model::OpaqueKind::NodeTransform { node, .. } if skeleton.base_nodes.contains(node))
    });
    let written = match job.document.filter(|_| moves_base) {
        Some(doc) => {
            let base = doc.base_motion(skeleton, chosen).map_err(|e| {
                JobError::Output(format!("{}: cannot write BVH: {e}", output.display()))
            })?;
            bvh_io::write_moving_base(skeleton, chosen, &base, job.options)
        }
        None => bvh_io::write(skeleton, chosen, job.options),
    };
    let text = written
        .map_err(|e| JobError::Output(format!("{}: cannot write BVH: {e}", output.display())))?;
    super::write_file(output, text.as_bytes())
        .map_err(|e| JobError::Output(format!("{}: cannot write: {e}", output.display())))?;
    Ok(chosen.name.clone())
}
