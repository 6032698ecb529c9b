//! Settings files: every stage's options (normalizing and retargeting) in one RON file, merged as
//! defaults < settings file < command-line flags (the CLI writes its flags into a [`Settings`]),
//! then turned into typed options by [`Settings::resolve`], the one resolver every command and
//! batch use: it loads the profile and the bone-map file named, checks every value against the
//! profile, and builds the pipeline's options. Unknown or misspelt keys are errors that name the
//! key and the file. [`Settings::dump_defaults`] prints every option with its documentation and
//! default, as a settings file that parses back into the defaults. Reads settings, profile,
//! bone-map and retarget-pose files; imports the option types of the stages and the pipeline.

use crate::mapping::{BoneMapFile, BoneMapFileError, MapOptions};
use crate::pipeline::{NormalizeOptions, RetargetJob, Stages};
use crate::profile::{Profile, ProfileError};
use crate::rename::RenameOptions;
use crate::rest::RestOptions;
use crate::retarget::{RetargetOptions, RetargetPose};
use crate::tracks::TrackOptions;
use documented::DocumentedFields;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Every option of `skelnorm normalize`, by stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocumentedFields)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Mapping bones to the profile.
    pub map: MapSettings,
    /// Which skeletons are normalized, which stages run, and whether the invariants are
    /// measured.
    pub normalize: NormalizeSettings,
    /// The rest fix: node transforms, facing, T-pose, axes, keys, skin.
    pub rest: RestOptions,
    /// Track stripping: which channels the clips lose.
    pub tracks: TrackOptions,
    /// Renaming: mapped bones take their profile names.
    pub rename: RenameOptions,
    /// Retargeting (`skelnorm retarget`): root, FK and IK passes, chains, retarget pose.
    pub retarget: RetargetOptions,
    /// The clips retargeting adds: what happens when a name is taken.
    pub clips: ClipSettings,
    /// The folder of the file these settings were read from: relative paths in them (profile,
    /// bone map) start there. `None` for settings not read from a file (relative to the
    /// working directory).
    #[serde(skip)]
    pub folder: Option<PathBuf>,
    /// The file these settings were read from, named in errors about their values. `None` for
    /// settings not read from a file.
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

/// The clips retargeting adds to a target.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocumentedFields)]
#[serde(default, deny_unknown_fields)]
pub struct ClipSettings {
    /// When a new clip's name is a clip of the target's, or another new clip's, ignoring case
    /// (engines and DCCs that look clips up without case would merge or overwrite them):
    /// `rename` keeps the target's clip and names the new one `NAME (retargeted)`, `replace`
    /// drops the target's clip, `refuse` changes nothing and exits 2. The report names each
    /// clash.
    pub on_clash: crate::pipeline::OnClash,
}

/// How bones are mapped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocumentedFields)]
#[serde(default, deny_unknown_fields)]
pub struct MapSettings {
    /// A profile RON file to map to; `None` is the built-in humanoid. A relative path starts at
    /// the settings file's folder. Default: None.
    pub profile: Option<String>,
    /// A bone-map RON file (from `skelnorm map -o`) whose entries win over auto-mapping. A
    /// relative path starts at the settings file's folder. Default: None.
    pub bone_map: Option<String>,
    /// Auto-map even when the file declares a VRM humanoid map. Default: false.
    pub ignore_vrm: bool,
    /// Retargeting: a bone-map file for the source only (the files of `batch --retarget-to`);
    /// it replaces `bone_map` on that side. Default: None.
    pub source_bone_map: Option<String>,
    /// Retargeting: a bone-map file for the target only; it replaces `bone_map` on that side.
    /// Default: None.
    pub target_bone_map: Option<String>,
}

/// Which skeletons are normalized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, DocumentedFields)]
#[serde(default, deny_unknown_fields)]
pub struct NormalizeSettings {
    /// Normalize skeletons that lack any required bones (by default only required end bones,
    /// such as hands or feet, may be missing). Default: false.
    pub allow_partial: bool,
    /// Refuse skeletons that lack any required bone. Default: false.
    pub strict: bool,
    /// Measure the invariants (skin, T-pose) for the report. Default: true.
    pub check: bool,
    /// Run the rest fix (T-pose facing +Z, +Y toward each bone's child). Default: true.
    pub fix_rest: bool,
    /// Run track stripping (see the `tracks` section). Default: true.
    pub strip_tracks: bool,
    /// Rename mapped bones to their profile names (see the `rename` section). Default: true.
    pub rename_bones: bool,
}

impl Default for NormalizeSettings {
    fn default() -> Self {
        NormalizeSettings {
            allow_partial: false,
            strict: false,
            check: true,
            fix_rest: true,
            strip_tracks: true,
            rename_bones: true,
        }
    }
}

/// A settings file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct SettingsError {
    /// The file (with line and column when known).
    pub origin: String,
    /// What is wrong, naming the key.
    pub message: String,
}

impl Settings {
    /// Reads a settings file.
    pub fn load(path: &std::path::Path) -> Result<Settings, SettingsError> {
        let mut settings: Settings = load_ron(path)?;
        settings.folder = Some(path.parent().map(Path::to_path_buf).unwrap_or_default());
        settings.file = Some(path.to_path_buf());
        Ok(settings)
    }

    /// `path` from these settings, relative to their file's folder.
    fn path(&self, path: &str) -> PathBuf {
        match &self.folder {
            Some(dir) if Path::new(path).is_relative() => dir.join(path),
            _ => PathBuf::from(path),
        }
    }

    /// Typed options from these settings: the profile loaded (the built-in humanoid when none is
    /// named), the bone-map file read and checked against it, every value checked (bone names
    /// against the profile, numbers against their ranges), and the pipeline's options built. Every
    /// command resolves its settings here, so the same settings have the same effect everywhere.
    pub fn resolve(&self) -> Result<Resolved, ResolveError> {
        let (profile, map) = self.resolve_map()?;
        self.check_values(&profile)?;
        let side = |file: &Option<String>| -> Result<MapOptions, ResolveError> {
            Ok(match file {
                Some(p) => MapOptions {
                    overrides: Some(self.bone_map_file(p, &profile)?),
                    ..map.clone()
                },
                None => map.clone(),
            })
        };
        let (source_map, target_map) = (
            side(&self.map.source_bone_map)?,
            side(&self.map.target_bone_map)?,
        );
        let n = &self.normalize;
        let normalize = NormalizeOptions {
            map,
            stages: Stages {
                rest: n.fix_rest,
                strip: n.strip_tracks,
                rename: n.rename_bones,
            },
            rest: self.rest.clone(),
            tracks: self.tracks.clone(),
            rename: self.rename.clone(),
            skeleton: None,
            allow_partial: n.allow_partial,
            require_all: n.strict,
            measure: n.check,
        };
        Ok(Resolved {
            profile,
            normalize,
            source_map,
            target_map,
            retarget: self.retarget.clone(),
            on_clash: self.clips.on_clash,
        })
    }

    /// The `map` section alone (what `skelnorm map` needs): the profile loaded and the bone-map
    /// file read and checked against it.
    pub fn resolve_map(&self) -> Result<(Profile, MapOptions), ResolveError> {
        let profile = match &self.map.profile {
            Some(p) => Profile::load(&self.path(p))?,
            None => Profile::humanoid_owned(),
        };
        let overrides = match &self.map.bone_map {
            Some(p) => Some(self.bone_map_file(p, &profile)?),
            None => None,
        };
        let map = MapOptions {
            overrides,
            ignore_declared: self.map.ignore_vrm,
        };
        Ok((profile, map))
    }

    /// The bone-map file at `path` (relative to these settings' folder), checked against
    /// `profile`.
    fn bone_map_file(&self, path: &str, profile: &Profile) -> Result<BoneMapFile, ResolveError> {
        let path = self.path(path);
        let file = BoneMapFile::load(&path)?;
        file.check(profile, &path.display().to_string())?;
        Ok(file)
    }

    /// Checks the values no type can: names against `profile`, numbers against their ranges.
    fn check_values(&self, profile: &Profile) -> Result<(), ResolveError> {
        // `file: section.key = value: why` (the file when the settings came from one; a flag
        // sets the same keys).
        let invalid = |key: &str, value: &dyn std::fmt::Display, why: &str| {
            let file = self
                .file
                .as_ref()
                .map(|f| format!("{}: ", f.display()))
                .unwrap_or_default();
            Err(ResolveError::Invalid(format!(
                "{file}{key} = {value}: {why}"
            )))
        };
        let t = self.rest.silhouette_threshold_deg;
        if !(0.0..=180.0).contains(&t) {
            return invalid(
                "rest.silhouette_threshold_deg",
                &t,
                "must be between 0 and 180 degrees",
            );
        }
        let no_bone = format!("the `{}` profile has no such bone", profile.name);
        let unknown = |names: &[String]| names.iter().find(|n| profile.find(n).is_none()).cloned();
        if let Some(bad) = unknown(&self.rest.silhouette_skip) {
            return invalid("rest.silhouette_skip", &format!("`{bad}`"), &no_bone);
        }
        let tolerance = self.tracks.tolerance;
        if !(tolerance >= 0.0 && tolerance.is_finite()) {
            return invalid(
                "tracks.tolerance",
                &tolerance,
                "must be a finite number of at least 0",
            );
        }
        if let Some(bad) = unknown(&self.tracks.position_bones) {
            return invalid("tracks.position_bones", &format!("`{bad}`"), &no_bone);
        }
        if let Some(name) = self
            .rename
            .skeleton_name
            .as_deref()
            .filter(|n| n.trim().is_empty())
        {
            return invalid(
                "rename.skeleton_name",
                &format!("{name:?}"),
                "must not be empty",
            );
        }
        let r = &self.retarget;
        if !(r.fps > 0.0 && r.fps.is_finite() && r.fps <= 1000.0) {
            return invalid("retarget.fps", &r.fps, "must be above 0 and at most 1000");
        }
        for (key, v) in [
            ("retarget.horizontal_scale", r.horizontal_scale),
            ("retarget.vertical_scale", r.vertical_scale),
        ] {
            if !v.is_finite() {
                return invalid(key, &v, "must be a finite number");
            }
        }
        if !(0.0..=180.0).contains(&r.ik_max_leg_deg) {
            return invalid(
                "retarget.ik_max_leg_deg",
                &r.ik_max_leg_deg,
                "must be between 0 and 180",
            );
        }
        for (name, c) in &r.chains {
            if !(0.0..=1.0).contains(&c.ik_blend) {
                return invalid(
                    &format!("retarget.chains.{name}.ik_blend"),
                    &c.ik_blend,
                    "must be between 0 and 1",
                );
            }
        }
        if let Some((key, value, why)) = crate::retarget::ops::check_ops(&r.ops) {
            return invalid(&format!("retarget.ops{key}"), &value, why);
        }
        for (side, offsets) in [("source", &r.pose.source), ("target", &r.pose.target)] {
            for (bone, euler) in offsets {
                if profile.find(bone).is_none() {
                    return invalid(
                        &format!("retarget.pose.{side}"),
                        &format!("`{bone}`"),
                        &no_bone,
                    );
                }
                if !euler.iter().all(|d| d.is_finite()) {
                    return invalid(
                        &format!("retarget.pose.{side}.{bone}"),
                        &format!("{euler:?}"),
                        "must be finite degrees",
                    );
                }
            }
        }
        Ok(())
    }

    /// Parses settings text; `origin` names it in errors. Missing keys take their defaults.
    pub fn from_ron(text: &str, origin: &str) -> Result<Settings, SettingsError> {
        from_ron(text, origin)
    }

    /// Every option with its documentation (as `//` comments) and its default, as RON that
    /// parses back into `Settings::default()`.
    pub fn dump_defaults() -> String {
        let pretty = ron::ser::PrettyConfig::new()
            .indentor("    ".to_string())
            .struct_names(false);
        let text =
            ron::ser::to_string_pretty(&Settings::default(), pretty).expect("settings serialize");
        let mut out = String::from("// skelnorm settings: every option with its default.\n// Pass with `--settings FILE`; flags given on the command line win over the file.\n");
        let mut section = String::new();
        for line in text.lines() {
            let indent = line.len() - line.trim_start().len();
            let key = line.trim_start().split_once(':').map(|(k, _)| k.trim());
            let doc = match (indent, key) {
                (4, Some(k)) => {
                    section = k.to_string();
                    Settings::get_field_docs(k).ok()
                }
                (8, Some(k)) => field_docs(&section, k),
                _ => None,
            };
            if let Some(doc) = doc {
                for d in doc.lines() {
                    out.push_str(
                        &format!("{}// {d}\n", " ".repeat(indent)).replace("// \n", "//\n"),
                    );
                }
            }
            if (indent, key, section.as_str()) == (8, Some("ops"), "retarget") {
                out.push_str("        // Every op with its defaults:\n");
                for op in crate::retarget::ops::every_op() {
                    let text = ron::ser::to_string(&op).expect("ops serialize");
                    out.push_str(&format!("        //   {text}\n"));
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// Reads a retarget-pose RON file (`(source: {"LeftUpperArm": (0, 0, -45)}, target: {})`).
pub fn load_pose(path: &Path) -> Result<RetargetPose, SettingsError> {
    load_ron(path)
}

/// Reads a RON file into `T`; errors name the file (with line and column).
fn load_ron<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, SettingsError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SettingsError {
        origin: origin.clone(),
        message: format!("cannot read: {e}"),
    })?;
    from_ron(&text, &origin)
}

/// Parses RON text into `T`; `origin` names it in errors.
fn from_ron<T: serde::de::DeserializeOwned>(text: &str, origin: &str) -> Result<T, SettingsError> {
    ron::from_str(text).map_err(|e: ron::error::SpannedError| SettingsError {
        origin: format!("{origin}:{}:{}", e.position.line, e.position.col),
        message: ron_message(&e.code),
    })
}

/// The message of a RON error; an unknown field or value names what was found, where, and the
/// closest expected name (`unknown field \`flaten_feet\` in \`RestOptions\`: did you mean
/// \`flatten_feet\`? expected one of …`).
fn ron_message(e: &ron::error::Error) -> String {
    use ron::error::Error;
    let (what, expected, found, outer) = match e {
        Error::NoSuchStructField {
            expected,
            found,
            outer,
        } => ("field", expected, found, outer),
        Error::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => ("value", expected, found, outer),
        e => return e.to_string(),
    };
    let place = outer
        .as_ref()
        .map(|o| format!(" in `{o}`"))
        .unwrap_or_default();
    let hint = closest(found, expected)
        .map(|c| format!(": did you mean `{c}`?"))
        .unwrap_or_default();
    let list: Vec<String> = expected.iter().map(|x| format!("`{x}`")).collect();
    format!(
        "unknown {what} `{found}`{place}{hint} (expected one of {})",
        list.join(", ")
    )
}

/// The candidate closest to `found`, if it is close enough to be a typo of it.
pub fn closest<'a>(found: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(found, c), *c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The options settings resolve to (see [`Settings::resolve`]).
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The profile both mapping and retargeting use.
    pub profile: Profile,
    /// Options of `normalize` (every skeleton; set `skeleton` to choose one).
    pub normalize: NormalizeOptions,
    /// Mapping the source of a retarget (`map.source_bone_map`, else as `normalize`).
    pub source_map: MapOptions,
    /// Mapping the target of a retarget (`map.target_bone_map`, else as `normalize`).
    pub target_map: MapOptions,
    /// Options of retargeting.
    pub retarget: RetargetOptions,
    /// When a retargeted clip's name is taken.
    pub on_clash: crate::pipeline::OnClash,
}

impl Resolved {
    /// The retarget job these settings make: each side normalized as `normalize` (without the
    /// invariant measures, which retargeting does not report) with its own map; the retarget
    /// options; measures as `normalize.check` asks. Each side's skeleton choice, the clips,
    /// names and the output mode are the defaults, for the caller to set.
    pub fn retarget_job(&self) -> RetargetJob {
        let side = |map: &MapOptions| NormalizeOptions {
            map: map.clone(),
            measure: false,
            ..self.normalize.clone()
        };
        RetargetJob {
            source: side(&self.source_map),
            target: side(&self.target_map),
            retarget: self.retarget.clone(),
            measure: self.normalize.measure,
            naming: crate::pipeline::ClipNaming {
                on_clash: self.on_clash,
                ..Default::default()
            },
            ..RetargetJob::default()
        }
    }
}

/// Why settings do not resolve: a file they name, or a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// The profile file cannot be read or is not valid.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The bone-map file cannot be read or does not fit the profile.
    #[error(transparent)]
    BoneMap(#[from] BoneMapFileError),
    /// A value is out of range or names something the profile does not have.
    #[error("{0}")]
    Invalid(String),
}

/// The documentation of field `field` of section `section`.
fn field_docs(section: &str, field: &str) -> Option<&'static str> {
    match section {
        "map" => MapSettings::get_field_docs(field).ok(),
        "normalize" => NormalizeSettings::get_field_docs(field).ok(),
        "rest" => RestOptions::get_field_docs(field).ok(),
        "tracks" => TrackOptions::get_field_docs(field).ok(),
        "rename" => RenameOptions::get_field_docs(field).ok(),
        "retarget" => RetargetOptions::get_field_docs(field).ok(),
        "clips" => ClipSettings::get_field_docs(field).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumped_defaults_parse_back_into_the_defaults() {
        let text = Settings::dump_defaults();
        assert_eq!(
            Settings::from_ron(&text, "dump").unwrap(),
            Settings::default()
        );
        // Every option (a key at the second level) is documented.
        let option = |l: &&str| {
            l.starts_with("        ")
                && !l.starts_with("         ")
                && l.contains(':')
                && !l.trim_start().starts_with("//")
        };
        let options = text.lines().filter(option).count();
        assert!(options >= 24, "{options} options in\n{text}");
        for (i, line) in text.lines().enumerate().filter(|(_, l)| option(l)) {
            let before = text.lines().nth(i - 1).unwrap();
            assert!(
                before.trim_start().starts_with("//"),
                "`{line}` has no documentation"
            );
        }
    }

    #[test]
    fn dumped_ops_parse_back() {
        let text = Settings::dump_defaults();
        let ops: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("//   "))
            .collect();
        assert_eq!(ops.len(), crate::retarget::ops::every_op().len(), "{text}");
        let list = format!("(retarget: (ops: [{}]))", ops.join(", "));
        let s = Settings::from_ron(&list, "dump").unwrap();
        assert_eq!(s.retarget.ops, crate::retarget::ops::every_op());
    }

    #[test]
    fn a_misspelt_key_names_the_key_and_the_file() {
        let err =
            Settings::from_ron("(rest: (silhouete_threshold_deg: 15.0))", "my.ron").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("my.ron:1:"), "{text}");
        assert!(text.contains("silhouete_threshold_deg"), "{text}");
    }

    #[test]
    fn missing_keys_take_defaults() {
        let s = Settings::from_ron("(rest: (silhouette_threshold_deg: 15.0))", "x").unwrap();
        assert_eq!(s.rest.silhouette_threshold_deg, 15.0);
        assert!(s.rest.fix_silhouette && s.normalize.check);
    }
}
