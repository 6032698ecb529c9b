//! Settings files: every stage's options (normalizing and retargeting) in one RON file, merged as defaults < settings file <
//! command-line flags. Unknown or misspelt keys are errors that name the key and the file.
//! [`Settings::dump_defaults`] prints every option with its documentation and default, as a
//! settings file that parses back into the defaults. Parses, merges and dumps; imports only the
//! stages' option types.

use crate::rename::RenameOptions;
use crate::rest::RestOptions;
use crate::retarget::RetargetOptions;
use crate::tracks::TrackOptions;
use documented::DocumentedFields;
use serde::{Deserialize, Serialize};

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
}

/// How bones are mapped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocumentedFields)]
#[serde(default, deny_unknown_fields)]
pub struct MapSettings {
    /// A profile RON file to map to; `None` is the built-in humanoid. Default: None.
    pub profile: Option<String>,
    /// A bone-map RON file (from `skelnorm map -o`) whose entries win over auto-mapping.
    /// Default: None.
    pub bone_map: Option<String>,
    /// Auto-map even when the file declares a VRM humanoid map. Default: false.
    pub ignore_vrm: bool,
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
        let text = std::fs::read_to_string(path).map_err(|e| SettingsError {
            origin: path.display().to_string(),
            message: format!("cannot read: {e}"),
        })?;
        Settings::from_ron(&text, &path.display().to_string())
    }

    /// Parses settings text; `origin` names it in errors. Missing keys take their defaults.
    pub fn from_ron(text: &str, origin: &str) -> Result<Settings, SettingsError> {
        ron::from_str(text).map_err(|e: ron::error::SpannedError| SettingsError {
            origin: format!("{origin}:{}:{}", e.position.line, e.position.col),
            message: e.code.to_string(),
        })
    }

    /// Every option with its documentation (as `//` comments) and its default, as RON that
    /// parses back into `Settings::default()`.
    pub fn dump_defaults() -> String {
        let pretty = ron::ser::PrettyConfig::new()
            .indentor("    ".to_string())
            .struct_names(false);
        let text = ron::ser::to_string_pretty(&Settings::default(), pretty).expect("settings serialize");
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
                    out.push_str(&format!("{}// {d}\n", " ".repeat(indent)).replace("// \n", "//\n"));
                }
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }
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
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumped_defaults_parse_back_into_the_defaults() {
        let text = Settings::dump_defaults();
        assert_eq!(Settings::from_ron(&text, "dump").unwrap(), Settings::default());
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
    fn a_misspelt_key_names_the_key_and_the_file() {
        let err = Settings::from_ron("(rest: (silhouete_threshold_deg: 15.0))", "my.ron").unwrap_err();
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
