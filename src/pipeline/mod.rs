//! The stage order, known here and nowhere else: map → rest fix → track stripping → renaming
//! (then, optionally, the measurements of [`check`](crate::check), which
//! [`normalize_measuring_later`] leaves to run beside the caller's write), the retarget workflow
//! over two normalized models ([`retarget()`]) and the mirror workflow ([`mirror()`]). Works on
//! the model; reads and writes no files.

mod mirror;
mod retarget;

pub use mirror::{mirror, MirrorJob, MirrorRunError, MirrorRunReport};
pub use retarget::{
    carry_clips_back, drop_replaced, effector_series, retarget, retarget_onto, ClipNaming, OnClash,
    RetargetJob, RetargetOutput, RetargetReport, RetargetRunError, RetargetedClip, Side,
};

use crate::check::{self, RestCheck, SkinCheck};
use crate::mapping::{map_in_model, BoneMap, MapOptions, MapReport};
use crate::model::{drop_rereadable, Model, RereadableKeys, SkeletonId};
use crate::profile::Profile;
use crate::rename::{rename, RenameError, RenameOptions, RenameReport};
use crate::rest::{fix_rest_checked, RestError, RestOptions, RestReport};
use crate::tracks::{rejoin, strip, StripReport, TrackError, TrackOptions, UnmappedBones};
use serde::Serialize;

/// Which stages after mapping run. All do by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stages {
    /// The rest fix ([`crate::rest`]).
    pub rest: bool,
    /// Track stripping ([`crate::tracks`]).
    pub strip: bool,
    /// Renaming ([`crate::rename`]).
    pub rename: bool,
}

impl Default for Stages {
    fn default() -> Self {
        Stages {
            rest: true,
            strip: true,
            rename: true,
        }
    }
}

/// Options of `normalize`: one field per stage, plus what to do with skeletons that do not fit.
#[derive(Debug, Clone, Default)]
pub struct NormalizeOptions {
    /// How bones are mapped.
    pub map: MapOptions,
    /// Which stages run.
    pub stages: Stages,
    /// The rest fix.
    pub rest: RestOptions,
    /// Track stripping.
    pub tracks: TrackOptions,
    /// Renaming mapped bones (and the armature) to the profile's names.
    pub rename: RenameOptions,
    /// Normalize only this skeleton (by index); by default every skeleton that fits the profile.
    pub skeleton: Option<SkeletonId>,
    /// Normalize skeletons that lack any required bones (with what is mapped). Without it, a
    /// skeleton may lack only required *end* bones (no required bone below them: head, hands,
    /// feet), as rigs without hand or foot bones do; the report lists them.
    pub allow_partial: bool,
    /// Refuse skeletons that lack any required bone.
    pub require_all: bool,
    /// Measure the invariants (skin, T-pose) and put them in the report; costs a pass over
    /// every clip at 30 frames per second.
    pub measure: bool,
}

/// The measured invariants of one normalized skeleton.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Measured {
    /// Skinning matrices before and after, over every clip.
    pub skin: SkinCheck,
    /// The new rest against the profile.
    pub rest: RestCheck,
}

/// What happened to one skeleton.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SkeletonReport {
    /// The skeleton in the file.
    pub index: SkeletonId,
    /// Its name.
    pub skeleton: String,
    /// Why it was left alone, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The bone map.
    pub mapping: MapReport,
    /// The bone map itself (for stages after `normalize`, such as retargeting).
    #[serde(skip)]
    pub bone_map: BoneMap,
    /// What the rest fix did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest: Option<RestReport>,
    /// What track stripping did, per clip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracks: Option<StripReport>,
    /// Which bones were renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<RenameReport>,
    /// The measured invariants.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
}

/// What `normalize` did to a model.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NormalizeReport {
    /// The profile.
    pub profile: String,
    /// Per skeleton considered.
    pub skeletons: Vec<SkeletonReport>,
}

impl NormalizeReport {
    /// Skeletons that were normalized.
    pub fn normalized(&self) -> usize {
        self.skeletons
            .iter()
            .filter(|s| s.skipped.is_none())
            .count()
    }
}

/// Why `normalize` changed nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NormalizeError {
    /// `skeleton` names a skeleton the model does not have.
    #[error("there is no skeleton {0} (the file has {1})")]
    NoSkeleton(SkeletonId, usize),
    /// The model has no skeleton at all (no skin, and no node tree the reader took for bones):
    /// nothing to map, with or without `allow_partial`.
    #[error("has no skeleton to normalize (no skin, and no tree of nodes that could be bones)")]
    NoSkeletons,
    /// No skeleton fits the profile; lists what each lacks.
    #[error("no skeleton fits the `{profile}` profile: {}", missing.join("; "))]
    NoFit {
        /// The profile.
        profile: String,
        /// Per skeleton, what it lacks.
        missing: Vec<String>,
    },
    /// The rest fix refused a skeleton.
    #[error(transparent)]
    Rest(#[from] RestError),
    /// Track stripping refused a skeleton.
    #[error(transparent)]
    Tracks(#[from] TrackError),
    /// Renaming refused a skeleton.
    #[error(transparent)]
    Rename(#[from] RenameError),
}

/// Maps and normalizes the skeletons of `model`. On error the model is unchanged.
pub fn normalize(
    model: &mut Model,
    profile: &Profile,
    options: &NormalizeOptions,
) -> Result<NormalizeReport, NormalizeError> {
    let (mut report, measuring) = normalize_measuring_later(model, profile, options, None)?;
    measuring.run_beside(model, &mut report, check::cores(), || ());
    Ok(report)
}

/// [`normalize`], leaving the skin check of the last skeleton it normalizes (the one that
/// costs, when `options.measure` asks for it) to [`Measuring::run_beside`], which runs it beside
/// other work, such as writing the result. Until then that skeleton's report has no `measured`.
/// On error the model is unchanged.
///
/// `rereading`, for a model as read (unchanged since) whose key values its reader can read
/// again (as the glTF reader's `Document::rereadable_keys` gives them): the copy kept to measure
/// against lets go of those values and takes them back clip by clip while measuring
/// ([`Measuring::run_beside`]), so the model's keys are converted where they are, as with
/// nothing to measure, and no second copy of them is alive meanwhile. It lets go of them when
/// one skeleton is normalized and measured (with more, the copy is also what the model is
/// restored from if a stage refuses); the report is the same either way.
pub fn normalize_measuring_later(
    model: &mut Model,
    profile: &Profile,
    options: &NormalizeOptions,
    rereading: Option<std::sync::Arc<dyn RereadableKeys>>,
) -> Result<(NormalizeReport, Measuring), NormalizeError> {
    let maps = map_chosen(model, profile, options)?;
    // One copy: the state to measure against, and to restore if a stage refuses. A refusal
    // comes from the checks each skeleton's stages make before any of them changes the model
    // (`normalize_one`), so with one skeleton to normalize and nothing to measure there is
    // nothing to restore: then no copy shares the model's key arrays, and the rest fix converts
    // them where they are instead of into new ones (issue 19).
    let staged = maps
        .iter()
        .filter(|(_, m)| fits(m, profile, options))
        .count();
    let mut original = (options.measure || staged > 1).then(|| model.clone());
    // With one skeleton staged, the copy is only measured against: it need not hold the values
    // `rereading` can read again, and the model's arrays are then its own. `rereading` is kept only
    // when the copy let go of some.
    let rereading = rereading
        .filter(|_| staged == 1)
        .zip(original.as_mut())
        .and_then(|(a, copy)| (drop_rereadable(copy, a.as_ref()) > 0).then_some(a));
    let mut report = NormalizeReport {
        profile: profile.name.clone(),
        skeletons: Vec::with_capacity(maps.len()),
    };
    let mut due: Option<SkinCheckDue> = None;
    for (k, map) in maps {
        // A skeleton is measured as its own stages left the model, before the next one's run.
        if let (Some(o), Some(original)) = (due.take(), &original) {
            let joined = o.joined(model);
            let after = joined.as_ref().unwrap_or(model);
            let skin = check::skin_rereading(original, after, o.k, rereading.as_deref());
            o.fill(&mut report, skin);
        }
        match normalize_one(model, k, map, profile, options) {
            Ok((skeleton, rest)) => {
                due = rest.map(|rest| SkinCheckDue {
                    at: report.skeletons.len(),
                    k,
                    rest,
                    joined: options.stages.strip
                        && options.tracks.unmapped_bones == UnmappedBones::Separate,
                });
                report.skeletons.push(skeleton);
            }
            Err(e) => {
                // A copy whose keys were dropped is no model to restore; with one skeleton
                // staged the stages refused before changing anything.
                if let Some(original) = original.filter(|_| rereading.is_none()) {
                    *model = original;
                }
                return Err(e);
            }
        }
    }
    let due = due.zip(original);
    Ok((report, Measuring { due, rereading }))
}

/// The skin check [`normalize_measuring_later`] left to run: the model as it was read, and
/// the skin check due (nothing when `measure` is off or no skeleton was normalized).
pub struct Measuring {
    due: Option<(SkinCheckDue, Model)>,
    /// What the model as read let go of and takes back clip by clip (see
    /// [`normalize_measuring_later`]).
    rereading: Option<std::sync::Arc<dyn RereadableKeys>>,
}

impl Measuring {
    /// Measures the skin check due into `report` (the report returned with it), comparing the model
    /// as it came with `after` (the model normalized, as it is now), on `threads` threads in all
    /// ([`check::cores`]: every core), beside `beside` (say, writing `after`; see
    /// [`check::skin_beside`]); returns what `beside` returned.
    pub fn run_beside<T>(
        self,
        after: &Model,
        report: &mut NormalizeReport,
        threads: usize,
        beside: impl FnOnce() -> T,
    ) -> T {
        let Some((due, original)) = self.due else {
            return beside();
        };
        let joined = due.joined(after);
        let after = joined.as_ref().unwrap_or(after);
        let rereading = self.rereading.as_deref();
        let (skin, out) = check::skin_beside(original, after, due.k, threads, rereading, beside);
        due.fill(report, skin);
        out
    }
}

/// The skin check a normalized skeleton is due: its place in the report, the skeleton, its rest
/// check (cheap, made at once), and whether its companion clips are measured joined.
struct SkinCheckDue {
    at: usize,
    k: SkeletonId,
    rest: RestCheck,
    joined: bool,
}

impl SkinCheckDue {
    /// The model `after` as the skin check sees it: companion clips play together with their
    /// clips, so they are measured joined.
    fn joined(&self, after: &Model) -> Option<Model> {
        self.joined.then(|| rejoin(after, self.k))
    }

    /// Fills the report's `measured` with `skin` and the rest check.
    fn fill(self, report: &mut NormalizeReport, skin: SkinCheck) {
        if let Some(s) = report.skeletons.get_mut(self.at) {
            s.measured = Some(Measured {
                skin,
                rest: self.rest,
            });
        }
    }
}

/// The bone map of every skeleton `options` chooses; an error when the choice does not exist or
/// no skeleton fits.
fn map_chosen(
    model: &Model,
    profile: &Profile,
    options: &NormalizeOptions,
) -> Result<Vec<(SkeletonId, BoneMap)>, NormalizeError> {
    let skeletons = &model.skeletons;
    let count = skeletons.len();
    if count == 0 {
        return Err(NormalizeError::NoSkeletons);
    }
    let chosen: Vec<SkeletonId> = match options.skeleton {
        Some(k) if k.index() >= count => return Err(NormalizeError::NoSkeleton(k, count)),
        Some(k) => vec![k],
        None => (0..count as u32).map(SkeletonId).collect(),
    };
    let maps: Vec<(SkeletonId, BoneMap)> = chosen
        .iter()
        .map(|&k| (k, map_in_model(model, k, profile, &options.map)))
        .collect();
    if maps.iter().any(|(_, m)| fits(m, profile, options)) {
        return Ok(maps);
    }
    let missing = maps
        .iter()
        .map(|(k, m)| {
            let lacks: Vec<&str> = m
                .missing_required(profile)
                .iter()
                .map(|&p| profile.bone(p).name.as_str())
                .collect();
            format!(
                "skeleton `{}` lacks {}",
                skeletons[k.index()].name,
                lacks.join(", ")
            )
        })
        .collect();
    Err(NormalizeError::NoFit {
        profile: profile.name.clone(),
        missing,
    })
}

/// Whether a skeleton with this map is normalized: it maps something, and lacks no required
/// bone, or only required end bones (unless `require_all`), or anything (`allow_partial`).
fn fits(map: &BoneMap, profile: &Profile, options: &NormalizeOptions) -> bool {
    let missing = map.missing_required(profile);
    let inner = |p: &crate::profile::ProfileBoneId| {
        profile
            .ids()
            .any(|d| d != *p && profile.bone(d).required && profile.is_ancestor(*p, d))
    };
    map.entries.iter().any(Option::is_some)
        && (options.allow_partial
            || missing.is_empty()
            || (!options.require_all && !missing.iter().any(inner)))
}

/// Runs the stages on skeleton `k` of `model` (or reports why it is left alone), with its rest
/// check when `options.measure` asks for measuring (the skin check is left to the caller).
fn normalize_one(
    model: &mut Model,
    k: SkeletonId,
    map: BoneMap,
    profile: &Profile,
    options: &NormalizeOptions,
) -> Result<(SkeletonReport, Option<RestCheck>), NormalizeError> {
    let mapping = map.report(model.skeleton(k), profile);
    let fit = fits(&map, profile, options);
    let mut report = SkeletonReport {
        index: k,
        skeleton: model.skeleton(k).name.clone(),
        skipped: None,
        mapping,
        bone_map: map,
        rest: None,
        tracks: None,
        rename: None,
        measured: None,
    };
    if !fit {
        report.skipped = Some(format!(
            "lacks required bones: {}",
            report.mapping.missing_required.join(", ")
        ));
        return Ok((report, None));
    }
    let (stages, map) = (options.stages, &report.bone_map);
    // Every stage's checks before any stage runs: a refusal leaves the model as it came. The
    // stages do not change what the later ones check (the skeleton, the map, the options).
    if stages.rest {
        crate::rest::check(model, k, map, profile, &options.rest)?;
    }
    if stages.strip {
        crate::tracks::check(model, k, map, profile, &options.tracks)?;
    }
    if stages.rename {
        crate::rename::check(model, k, map, profile, &options.rename)?;
    }
    if stages.rest {
        report.rest = Some(fix_rest_checked(model, k, map, profile, &options.rest));
    }
    if stages.strip {
        report.tracks = Some(strip(model, k, map, profile, &options.tracks)?);
    }
    if stages.rename {
        report.rename = Some(rename(model, k, map, profile, &options.rename)?);
    }
    let rest = options.measure.then(|| match &report.rest {
        Some(r) => check::rest_in(model.skeleton(k), map, profile, r.frame),
        None => check::rest_as_shown(model, k, map, profile),
    });
    Ok((report, rest))
}

#[cfg(test)]
mod tests;
