//! The one JSON model of every command's report ([`Report`], versioned by [`SCHEMA`]): a run →
//! files → skeletons → stages, warnings everywhere as [`Warning`]s (code, message, skeleton,
//! bones), counts that add up; merging shard reports; rendering as one self-contained HTML page
//! people can scan (cards by severity, a warning-code filter, search, skeleton pictures, mapping
//! tables, animated [`Preview`]s of each clip with quality charts); and the text summaries of `normalize`, `retarget` and `map`. Aggregates and
//! renders; computes nothing. Imports the stages' report types; [`json_schema`] describes it all
//! (published as `schemas/report.schema.json`).

mod html;
mod text;

pub use html::render_html;
pub use text::{map_text, mirror_text, normalize_text, retarget_text};

use crate::gltf_io::{Converted, Format};
use crate::inspect::Inspection;
use crate::mapping::MapReport;
use crate::model::{Warning, WarningCode};
use crate::pipeline::{MirrorRunReport, NormalizeReport, RetargetReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of the reports' shape, the `schema` field of every report: a consumer checks it
/// before reading on. A change that removes or retypes a field takes a new version.
pub const SCHEMA: &str = "skelnorm/2";

/// The JSON Schema (draft 2020-12) of [`Report`], as published in `schemas/report.schema.json`.
pub fn json_schema() -> serde_json::Value {
    // The shape skelnorm writes (fields left out when empty are not required).
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut schema = generator.into_root_schema_for::<Report>().to_value();
    if let Some(o) = schema.as_object_mut() {
        o.insert(
            "$id".into(),
            format!(
                "https://skelnorm.dev/schemas/{}.schema.json",
                SCHEMA.replace('/', "-")
            )
            .into(),
        );
    }
    // The version is a constant, not any string.
    if let Some(v) = schema.pointer_mut("/properties/schema") {
        *v = serde_json::json!({ "const": SCHEMA, "description": "The report's shape: `skelnorm/2`." });
    }
    closed(&mut schema);
    schema
}

/// Closes every object schema that lists its properties (`additionalProperties: false`), so that
/// a field the schema does not document fails validation: the schema is the whole shape.
fn closed(schema: &mut serde_json::Value) {
    match schema {
        serde_json::Value::Object(o) => {
            if o.contains_key("properties") && !o.contains_key("additionalProperties") {
                o.insert("additionalProperties".into(), false.into());
            }
            o.values_mut().for_each(closed);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(closed),
        _ => {}
    }
}

/// How a file went.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Processed, nothing to tell.
    #[default]
    Ok,
    /// Processed, with warnings.
    Warnings,
    /// Could not be processed: unreadable, unwritable, or the command was used wrongly for it.
    Failed,
    /// Read, but refused as the profile or a stage asks: not a humanoid (no skeleton fits: a
    /// hand rig, a quadruped), or a stage refused it. An expected outcome for a library that
    /// mixes kinds of files, told apart from files that failed.
    Refused,
    /// Left alone (its output exists and `--existing skip`).
    Skipped,
}

impl Status {
    /// The status of a file that did not go through: [`Status::Refused`] for an input that was
    /// refused, [`Status::Failed`] otherwise.
    pub fn of_failure(kind: FailureKind) -> Status {
        match kind {
            FailureKind::Refused => Status::Refused,
            _ => Status::Failed,
        }
    }
}

/// Why a file failed, for the exit code: a file that could not be read or written, or an input
/// that was read and refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The input could not be read, or the output could not be built or written (or exists,
    /// with `--existing error`).
    File,
    /// The input was read but refused: not a humanoid (no skeleton fits), or a stage refused it.
    Refused,
    /// The command was used wrongly for this input: a bad flag value, a bad settings, profile or
    /// bone-map file, a clip it does not have.
    Usage,
    /// Nothing to do: no supported file, no clip to retarget or write.
    Nothing,
}

/// One bone of a skeleton picture: rest joint positions before and after, and its mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Picture {
    /// The skeleton's name.
    pub skeleton: String,
    /// Its bones, parents first.
    pub bones: Vec<PictureBone>,
    /// Required profile bones nothing maps to.
    pub missing: Vec<String>,
}

/// What `inspect` tells of a file: its format (and what a converted file declared), the glTF
/// extensions it uses, its skeletons and clips.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InspectReport {
    /// The container the file was read as.
    pub format: Format,
    /// What a converted file (FBX, BVH) declared: its format, units, axes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub converted: Option<Converted>,
    /// The glTF extensions the file uses.
    pub extensions_used: Vec<String>,
    /// Its skeletons and clips.
    #[serde(flatten)]
    pub inspection: Inspection,
}

/// What `convert` did: the formats and what went over.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConvertReport {
    /// The input's format (`gltf`, `glb`, `vrm`, `vrma`, `fbx`, `bvh`).
    pub from: String,
    /// The output's format.
    pub to: String,
    /// What a converted input (FBX, BVH) declared: its format, units, axes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub converted: Option<Converted>,
    /// Skeletons in the output.
    pub skeletons: usize,
    /// The clips written, by name.
    pub clips: Vec<String>,
}

/// One side of an animated preview: the main bones of a skeleton playing a clip, as joint
/// positions per frame, quantized to bytes to keep a report of many files small.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Series {
    /// What it measures: a profile bone (`LeftFoot`).
    pub bone: String,
    /// The side it is measured on (a [`Figure::label`]).
    pub side: String,
    /// One value per frame of the preview, 3 significant digits.
    pub values: Vec<f32>,
}

/// A chart of a measure over a clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileReport {
    /// The input, relative to the run's input folder (or as given). For `retarget`, the source.
    pub input: String,
    /// For `retarget` (and `batch --retarget-to`): the target character.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub target: Option<String>,
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
    /// Every warning about the file: the reader's and every stage's (also found, without the
    /// skeleton, in the stage reports below), each with the skeleton it concerns.
    #[serde(default)]
    pub warnings: Vec<Warning>,
    /// `inspect`: the file's skeletons and clips.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Option<InspectReport>")]
    pub inspect: Option<serde_json::Value>,
    /// `map`: per skeleton, the bone map and how sure the mapper is.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Option<Vec<MapReport>>")]
    pub map: Option<serde_json::Value>,
    /// What normalizing did (mapping, rest, tracks, renaming, measured invariants), per skeleton.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Option<NormalizeReport>")]
    pub normalize: Option<serde_json::Value>,
    /// Retargeting, when the run retargets: the plan and measures per clip.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Option<RetargetReport>")]
    pub retarget: Option<serde_json::Value>,
    /// `convert`: the formats and what went over.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub convert: Option<ConvertReport>,
    /// `mirror`: per skeleton, the pairs, the plane and the clips mirrored.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    #[schemars(with = "Option<MirrorRunReport>")]
    pub mirror: Option<serde_json::Value>,
    /// Pictures of the skeletons (batch and validate).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub pictures: Vec<Picture>,
    /// Animated previews of its clips (the first few, within a budget per file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previews: Vec<Preview>,
    /// Bytes on disk of the input (with the buffers and images it refers to).
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
            ..FileReport::default()
        }
    }

    /// A file that failed, or (`kind` [`FailureKind::Refused`]) was refused.
    pub fn failed(input: String, kind: FailureKind, error: String, time_ms: f64) -> FileReport {
        FileReport {
            status: Status::of_failure(kind),
            error: Some(error),
            failure: Some(kind),
            time_ms,
            ..FileReport::new(input)
        }
    }

    /// A file about to be processed, as read from `input`: its path as given, its size on disk
    /// (with the buffers and images it refers to) and what the reader noticed in it.
    pub fn read(input: &std::path::Path, warnings: &[Warning]) -> FileReport {
        let mut file = FileReport::new(input.display().to_string());
        file.size_before = crate::gltf_io::stored_size(input);
        file.add_reader_warnings(warnings);
        file
    }

    /// Records the output written: its path as given and its size on disk.
    pub fn wrote(&mut self, output: &std::path::Path) {
        self.output = Some(output.display().to_string());
        self.size_after = crate::gltf_io::stored_size(output);
    }

    /// Adds what the reader noticed in the input.
    pub fn add_reader_warnings(&mut self, warnings: &[Warning]) {
        self.warnings.extend_from_slice(warnings);
    }

    /// Fills the normalize part from a pipeline report, and gathers its warnings (the mapper's
    /// and every stage's) with the skeleton they concern.
    pub fn set_normalize(&mut self, r: &NormalizeReport) {
        for s in &r.skeletons {
            if let Some(why) = &s.skipped {
                self.warnings.push(
                    Warning::new(WarningCode::SkeletonSkipped, why.clone())
                        .on_skeleton(&s.skeleton),
                );
            }
            let rest = s.rest.iter().flat_map(|r| &r.warnings);
            let tracks = s.tracks.iter().flat_map(|t| &t.warnings);
            let rename = s.rename.iter().flat_map(|t| &t.warnings);
            let all = s
                .mapping
                .warnings
                .iter()
                .chain(rest)
                .chain(tracks)
                .chain(rename);
            self.warnings
                .extend(all.map(|w| w.clone().on_skeleton(&s.skeleton)));
        }
        self.normalize = value_of(r);
    }

    /// Fills the map part from the mapper's reports (one per skeleton), and gathers their
    /// warnings.
    pub fn set_map(&mut self, reports: &[MapReport]) {
        for r in reports {
            self.warnings.extend(
                r.warnings
                    .iter()
                    .map(|w| w.clone().on_skeleton(&r.skeleton)),
            );
        }
        self.map = value_of(reports);
    }

    /// Fills the retarget part from the pipeline's report, and gathers the plan's warnings (about
    /// the target skeleton).
    pub fn set_retarget(&mut self, r: &RetargetReport) {
        self.warnings.extend(
            r.plan
                .warnings
                .iter()
                .map(|w| w.clone().on_skeleton(&r.target_skeleton)),
        );
        self.retarget = value_of(r);
    }

    /// Fills the mirror part, and gathers its warnings with the skeleton they concern.
    pub fn set_mirror(&mut self, r: &MirrorRunReport) {
        for s in &r.skeletons {
            self.warnings.extend(
                s.warnings
                    .iter()
                    .map(|w| w.clone().on_skeleton(&s.skeleton)),
            );
        }
        self.mirror = value_of(r);
    }

    /// Sets the inspect part.
    pub fn set_inspect(&mut self, r: &InspectReport) {
        self.inspect = value_of(r);
    }

    /// Sets the status of a processed file from its warnings: `warnings` if it has any, else
    /// `ok` (a failed or skipped file keeps its status).
    pub fn settle(&mut self) {
        if matches!(self.status, Status::Ok | Status::Warnings) {
            self.status = if self.warnings.is_empty() {
                Status::Ok
            } else {
                Status::Warnings
            };
        }
    }
}

/// Counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    /// Files in the report.
    pub files: usize,
    /// Processed without warnings.
    pub ok: usize,
    /// Processed with warnings.
    pub warnings: usize,
    /// Files that could not be processed ([`Status::Failed`]).
    pub failed: usize,
    /// Files read but refused ([`Status::Refused`]): not a humanoid, or a stage refused them.
    #[serde(default)]
    pub refused: usize,
    /// Files left alone because their output existed ([`Status::Skipped`]).
    pub skipped: usize,
    /// Warnings of every file (`files[].warnings`), all together.
    pub warning_count: usize,
    /// Warnings per code, over every file (they add up to `warning_count`).
    pub codes: BTreeMap<String, usize>,
    /// Sum of the files' times, milliseconds.
    pub total_ms: f64,
    /// Wall-clock time of the run (or the longest of merged shards), milliseconds.
    pub wall_ms: f64,
}

/// The report of a run of any command (`inspect`, `map`, `normalize`, `retarget`, `convert`:
/// one file; `batch`, `validate`: many; or merged shard runs): what `--json` prints and report
/// files hold.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// The shape of the report: [`SCHEMA`].
    pub schema: String,
    /// What ran: `inspect`, `map`, `normalize`, `retarget`, `convert`, `batch`, `validate`, or
    /// `merge`.
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

impl Report {
    /// An empty report of `command` over `inputs`.
    pub fn new(command: &str, inputs: Vec<String>) -> Report {
        Report {
            schema: SCHEMA.into(),
            command: command.into(),
            inputs,
            shard: None,
            summary: Summary::default(),
            files: Vec::new(),
        }
    }

    /// The report of a command over one file.
    pub fn single(command: &str, file: FileReport) -> Report {
        let mut r = Report::new(command, vec![file.input.clone()]);
        r.summary.wall_ms = file.time_ms;
        r.files.push(file);
        r.finish();
        r
    }

    /// Recomputes the summary from the files (keeping the wall time) and sorts them by path.
    pub fn finish(&mut self) {
        self.files.sort_by(|a, b| a.input.cmp(&b.input));
        let count = |s: Status| self.files.iter().filter(|f| f.status == s).count();
        let mut codes = BTreeMap::new();
        for w in self.files.iter().flat_map(|f| &f.warnings) {
            *codes.entry(w.code.as_str().to_string()).or_insert(0) += 1;
        }
        self.summary = Summary {
            files: self.files.len(),
            ok: count(Status::Ok),
            warnings: count(Status::Warnings),
            failed: count(Status::Failed),
            refused: count(Status::Refused),
            skipped: count(Status::Skipped),
            warning_count: self.files.iter().map(|f| f.warnings.len()).sum(),
            codes,
            total_ms: self.files.iter().map(|f| f.time_ms).sum(),
            wall_ms: self.summary.wall_ms,
        };
    }

    /// Joins shard reports into one. A file listed twice (shards overlapping) is an error.
    pub fn merge(reports: Vec<Report>) -> Result<Report, MergeError> {
        let mut out = Report::new("merge", Vec::new());
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

/// A stage's report as JSON, its `f32`s written as the shortest decimals that read back as the
/// same `f32` (`0.85`, not the `f64` widening `0.8500000238418579` that `serde_json::to_value`
/// gives), as the stages' own JSON has them.
fn value_of<T: Serialize + ?Sized>(report: &T) -> Option<serde_json::Value> {
    serde_json::to_string(report)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
}
