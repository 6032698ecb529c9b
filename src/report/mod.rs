//! Reports of batch and validate runs: one entry per file (status, error, what each stage did,
//! measured invariants, warnings, time), a summary, merging shard reports, and rendering as JSON
//! or as one self-contained HTML page with pictures. Aggregates and renders; computes nothing.
//! Also the text summaries of `normalize`, `retarget` and `map`. Imports `pipeline`, `mapping` and
//! the stages (their report types).

mod html;
mod text;

pub use html::render_html;
pub use text::{map_text, NormalizeRun, RetargetRun};

use crate::model::Warning;
use crate::pipeline::NormalizeReport;
use serde::{Deserialize, Serialize};

/// How a file went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Processed, nothing to tell.
    Ok,
    /// Processed, with warnings.
    Warnings,
    /// Could not be processed (unreadable, not a humanoid, a stage refused it, …).
    Failed,
    /// Left alone (its output exists and `--existing skip`).
    Skipped,
}

/// Why a file failed, for the exit code: a file that could not be read or written, or an input
/// that was read and refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The input could not be read, or the output could not be built or written (or exists,
    /// with `--existing error`).
    File,
    /// The input was read but refused: not a humanoid (no skeleton fits), or a stage refused it.
    Refused,
}

/// One bone of a skeleton picture: rest joint positions before and after, and its mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PictureBone {
    /// The bone's name before the run.
    pub name: String,
    /// Index of its parent in the same list.
    pub parent: Option<usize>,
    /// Rest joint position before, in the skeleton's own space (metres or file units).
    pub before: [f32; 3],
    /// Rest joint position after normalization, if the skeleton was normalized.
    pub after: Option<[f32; 3]>,
    /// The profile bone it maps to.
    pub profile: Option<String>,
    /// The mapper's confidence, 0..=1.
    pub confidence: Option<f32>,
}

/// What a picture of one skeleton needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Picture {
    /// The skeleton's name.
    pub skeleton: String,
    /// Its bones, parents first.
    pub bones: Vec<PictureBone>,
    /// Required profile bones nothing maps to.
    pub missing: Vec<String>,
}

/// One side of an animated preview: the main bones of a skeleton playing a clip, as joint
/// positions per frame, quantized to bytes to keep a report of many files small.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// What this side is: `input`, `output`, `source` or `target`.
    pub label: String,
    /// The skeleton's name.
    pub skeleton: String,
    /// The profile bones drawn (the main bones the skeleton maps), parents first.
    pub bones: Vec<String>,
    /// Per bone, the index in `bones` of the nearest drawn bone above it.
    pub parents: Vec<Option<usize>>,
    /// World position (scene units) of the byte value 0 on each axis.
    pub origin: [f32; 3],
    /// Scene units per byte step, the same on every axis.
    pub step: f32,
    /// Base64 of the positions: per frame, per bone, x, y, z as bytes `b`, each the position
    /// `origin + step · b` (Y up).
    pub positions: String,
}

/// One line of a chart: a value per frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// What it measures: a profile bone (`LeftFoot`).
    pub bone: String,
    /// The side it is measured on (a [`Figure::label`]).
    pub side: String,
    /// One value per frame of the preview, 3 significant digits.
    pub values: Vec<f32>,
}

/// A chart of a measure over a clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// What it shows: `foot height`, `foot speed` or `end-effector error`.
    pub title: String,
    /// The unit of its values: `× height` or `× height/s` (the skeleton's own height).
    pub unit: String,
    /// Its lines.
    pub series: Vec<Series>,
}

/// An animated preview of one clip: two figures side by side (the input and output of
/// normalize, or the source and target of a retarget) sampled at the same times, and charts
/// of the measured quality over those times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// The clip (on the second side: the new clip of a retarget).
    pub clip: String,
    /// Frames per second of the samples.
    pub fps: f32,
    /// Frames sampled, from time 0 at `fps` (the first of a long clip, at the end of the
    /// budget).
    pub frames: usize,
    /// The clip's duration, seconds.
    pub duration: f32,
    /// The two sides.
    pub figures: Vec<Figure>,
    /// The charts.
    pub charts: Vec<Chart>,
}

/// One file of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileReport {
    /// The input, relative to the run's input folder (or as given).
    pub input: String,
    /// The output written, if any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub output: Option<String>,
    /// How it went.
    pub status: Status,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// What kind of failure, when it failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub failure: Option<FailureKind>,
    /// Warnings of every stage, as `code: message`.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What normalizing did (mapping, rest, tracks, renaming, measured invariants).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub normalize: Option<serde_json::Value>,
    /// Retargeting, when the run retargets: the plan and measures per clip.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub retarget: Option<serde_json::Value>,
    /// Pictures of the skeletons.
    #[serde(default)]
    pub pictures: Vec<Picture>,
    /// Animated previews of its clips (the first few, within a budget per file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previews: Vec<Preview>,
    /// Bytes of the input and of the output.
    #[serde(default)]
    pub size_before: u64,
    /// Bytes of the output (0 when none was written).
    #[serde(default)]
    pub size_after: u64,
    /// Time taken, milliseconds.
    pub time_ms: f64,
}

impl FileReport {
    /// A file about to be processed (status `ok` until told otherwise).
    pub fn new(input: String) -> FileReport {
        FileReport {
            input,
            output: None,
            status: Status::Ok,
            error: None,
            failure: None,
            warnings: Vec::new(),
            normalize: None,
            retarget: None,
            pictures: Vec::new(),
            previews: Vec::new(),
            size_before: 0,
            size_after: 0,
            time_ms: 0.0,
        }
    }

    /// A failed file.
    pub fn failed(input: String, kind: FailureKind, error: String, time_ms: f64) -> FileReport {
        FileReport {
            status: Status::Failed,
            error: Some(error),
            failure: Some(kind),
            time_ms,
            ..FileReport::new(input)
        }
    }

    /// Fills the normalize part from a pipeline report (and its warnings).
    pub fn set_normalize(&mut self, r: &NormalizeReport) {
        for s in &r.skeletons {
            let at = |w: &Warning| format!("{}: `{}`: {}", w.code, s.skeleton, w.message);
            if let Some(why) = &s.skipped {
                self.warnings
                    .push(format!("skeleton_skipped: `{}`: {why}", s.skeleton));
            }
            if !s.mapping.missing_required.is_empty() && s.skipped.is_none() {
                self.warnings.push(format!(
                    "required_missing: `{}`: lacks {}",
                    s.skeleton,
                    s.mapping.missing_required.join(", ")
                ));
            }
            let rest = s.rest.iter().flat_map(|r| &r.warnings);
            let tracks = s.tracks.iter().flat_map(|t| &t.warnings);
            let rename = s.rename.iter().flat_map(|t| &t.warnings);
            self.warnings
                .extend(rest.chain(tracks).chain(rename).map(at));
        }
        self.normalize = serde_json::to_value(r).ok();
    }
}

/// Counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Files in the report.
    pub files: usize,
    /// Processed without warnings.
    pub ok: usize,
    /// Processed with warnings.
    pub warnings: usize,
    /// Files that could not be processed ([`Status::Failed`]).
    pub failed: usize,
    /// Files left alone because their output existed ([`Status::Skipped`]).
    pub skipped: usize,
    /// Sum of the files' times, milliseconds.
    pub total_ms: f64,
    /// Wall-clock time of the run (or the longest of merged shards), milliseconds.
    pub wall_ms: f64,
}

/// The report of a run (or of merged shard runs).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BatchReport {
    /// What ran: `batch`, `validate`, or `merge`.
    pub command: String,
    /// The input folder(s).
    pub inputs: Vec<String>,
    /// The shard this run covered (`K/N`), if any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub shard: Option<String>,
    /// Files per status and times, computed from `files`.
    pub summary: Summary,
    /// Per file, in path order.
    pub files: Vec<FileReport>,
}

/// Why shard reports do not merge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// A file is in more than one report (the shards overlap).
    #[error("`{0}` is in more than one report")]
    Twice(String),
}

impl BatchReport {
    /// Recomputes the summary from the files (keeping the wall time) and sorts them by path.
    pub fn finish(&mut self) {
        self.files.sort_by(|a, b| a.input.cmp(&b.input));
        let count = |s: Status| self.files.iter().filter(|f| f.status == s).count();
        self.summary = Summary {
            files: self.files.len(),
            ok: count(Status::Ok),
            warnings: count(Status::Warnings),
            failed: count(Status::Failed),
            skipped: count(Status::Skipped),
            total_ms: self.files.iter().map(|f| f.time_ms).sum(),
            wall_ms: self.summary.wall_ms,
        };
    }

    /// Joins shard reports into one. A file listed twice (shards overlapping) is an error.
    pub fn merge(reports: Vec<BatchReport>) -> Result<BatchReport, MergeError> {
        let mut out = BatchReport {
            command: "merge".into(),
            ..BatchReport::default()
        };
        let mut seen = std::collections::HashSet::new();
        for r in reports {
            for i in r.inputs {
                if !out.inputs.contains(&i) {
                    out.inputs.push(i);
                }
            }
            out.summary.wall_ms = out.summary.wall_ms.max(r.summary.wall_ms);
            for f in r.files {
                if !seen.insert(f.input.clone()) {
                    return Err(MergeError::Twice(f.input));
                }
                out.files.push(f);
            }
        }
        out.finish();
        Ok(out)
    }
}
