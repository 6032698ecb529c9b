//! Bone-map files: an editable RON map from profile bones to source bone names. Entries win
//! over auto-mapping; profile bones the file does not mention are auto-mapped.

use super::{BoneMap, Mapped, Origin};
use crate::model::Skeleton;
use crate::model::{Warning, WarningCode};
use crate::profile::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A bone-map file.
///
/// ```ron
/// (
///     profile: "humanoid",
///     bones: {
///         "Hips": "mixamorig:Hips",
///         "LeftUpperArm": "mixamorig:LeftArm",
///     },
///     unmapped: ["Jaw"],
/// )
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoneMapFile {
    /// The profile the map is for (checked unless empty).
    #[serde(default)]
    pub profile: String,
    /// Profile bone name → source bone name.
    #[serde(default)]
    pub bones: BTreeMap<String, String>,
    /// Profile bones that must stay unmapped.
    #[serde(default)]
    pub unmapped: Vec<String>,
}

/// A bone-map file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct BoneMapFileError {
    /// The file.
    pub file: String,
    /// What is wrong.
    pub message: String,
}

impl BoneMapFile {
    /// Reads a bone-map file.
    pub fn load(path: &Path) -> Result<BoneMapFile, BoneMapFileError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| BoneMapFileError {
            file: file.clone(),
            message: format!("cannot read: {e}"),
        })?;
        BoneMapFile::from_ron(&text, &file)
    }

    /// Parses bone-map text; `file` names it in errors. A bone both mapped and listed as
    /// unmapped is an error.
    pub fn from_ron(text: &str, file: &str) -> Result<BoneMapFile, BoneMapFileError> {
        let map: BoneMapFile = ron::from_str(text).map_err(|e| BoneMapFileError {
            file: file.into(),
            message: format!("not a valid bone map: {e}"),
        })?;
        if let Some(b) = map.unmapped.iter().find(|b| map.bones.contains_key(*b)) {
            return Err(BoneMapFileError {
                file: file.into(),
                message: format!("`{b}` is both mapped and listed as unmapped"),
            });
        }
        Ok(map)
    }

    /// Checks the file against a profile: its name and every profile bone it mentions.
    pub fn check(&self, profile: &Profile, file: &str) -> Result<(), BoneMapFileError> {
        let err = |message: String| BoneMapFileError {
            file: file.into(),
            message,
        };
        if !self.profile.is_empty() && self.profile != profile.name {
            return Err(err(format!(
                "is for profile `{}`, not `{}`",
                self.profile, profile.name
            )));
        }
        let unknown: Vec<&str> = self
            .bones
            .keys()
            .chain(&self.unmapped)
            .map(String::as_str)
            .filter(|n| profile.find(n).is_none())
            .collect();
        if !unknown.is_empty() {
            return Err(err(format!(
                "profile `{}` has no bone {}",
                profile.name,
                unknown
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(())
    }

    /// Writes a map as an editable bone-map file, in profile order, unmapped bones as a comment.
    pub fn write_ron(map: &BoneMap, skeleton: &Skeleton, profile: &Profile) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// skelnorm bone map: profile bone -> source bone. Edit freely; bones left"
        );
        let _ = writeln!(
            s,
            "// out are auto-mapped, bones under `unmapped` stay unmapped."
        );
        let _ = writeln!(
            s,
            "(\n    profile: {},\n    bones: {{",
            quote(&profile.name)
        );
        let mut missing = Vec::new();
        for id in profile.ids() {
            let name = &profile.bone(id).name;
            match map.get(id) {
                Some(b) => {
                    let _ = writeln!(
                        s,
                        "        {}: {},",
                        quote(name),
                        quote(&skeleton.bones[b.index()].name)
                    );
                }
                None => missing.push(name.as_str()),
            }
        }
        let _ = writeln!(s, "    }},");
        if !missing.is_empty() {
            let _ = writeln!(s, "    // not mapped: {}", missing.join(", "));
        }
        let _ = writeln!(s, "    unmapped: [],\n)");
        s
    }

    /// Fills `fixed` and `forced_empty` from the file's entries.
    pub(super) fn apply(
        &self,
        skeleton: &Skeleton,
        profile: &Profile,
        fixed: &mut [Option<Mapped>],
        forced_empty: &mut [bool],
        warnings: &mut Vec<Warning>,
    ) {
        let mut warn = |code, bone: &str, message: String| {
            warnings.push(Warning {
                code,
                skeleton: None,
                message,
                bones: vec![bone.to_string()],
                clips: Vec::new(),
                chain: None,
            })
        };
        for (pb, src) in &self.bones {
            let Some(id) = profile.find(pb) else {
                warn(
                    WarningCode::UnknownBone,
                    pb,
                    format!("bone map: profile has no bone `{pb}`"),
                );
                continue;
            };
            let Some(b) = skeleton.find(src) else {
                warn(
                    WarningCode::UnknownBone,
                    pb,
                    format!("bone map: `{pb}`: skeleton has no bone `{src}`"),
                );
                continue;
            };
            if let Some(other) = fixed
                .iter()
                .position(|f| f.as_ref().is_some_and(|m| m.bone == b))
            {
                let o = &profile.bones[other].name;
                warn(
                    WarningCode::ClaimedTwice,
                    pb,
                    format!(
                        "bone map: `{src}` is claimed by both `{o}` and `{pb}`; `{o}` keeps it"
                    ),
                );
                continue;
            }
            fixed[id.index()] = Some(Mapped {
                bone: b,
                confidence: 1.0,
                origin: Origin::Override,
                reason: "bone map file".into(),
            });
        }
        for pb in &self.unmapped {
            match profile.find(pb) {
                Some(id) => forced_empty[id.index()] = true,
                None => warn(
                    WarningCode::UnknownBone,
                    pb,
                    format!("bone map: profile has no bone `{pb}`"),
                ),
            }
        }
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
