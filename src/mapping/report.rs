//! The serializable view of a mapping, for JSON output and reports.

use super::{BoneMap, Origin};
use crate::model::Skeleton;
use crate::model::Warning;
use crate::profile::Profile;
use indexmap::IndexMap;
use serde::Serialize;

/// One mapped profile bone, as reported.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MappedReport {
    /// Source bone name.
    pub source: String,
    /// glTF node index of the source bone.
    pub node: Option<u32>,
    /// 0..=1.
    pub confidence: f32,
    /// Why this bone was chosen, for people: the matching name, VRM entry or bone map file.
    pub reason: String,
    /// Where the decision came from.
    pub origin: Origin,
}

/// A whole mapping, as reported: profile bones in profile order.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MapReport {
    /// Profile name.
    pub profile: String,
    /// Skeleton name.
    pub skeleton: String,
    /// Mapped profile bones: profile bone name → source bone.
    pub bones: IndexMap<String, MappedReport>,
    /// Profile bones with no source bone.
    pub unmapped_profile: Vec<String>,
    /// Source bones no profile bone maps to (twist, helper, extra spine, end bones, …).
    pub unmapped_source: Vec<String>,
    /// Required profile bones with no source bone.
    pub missing_required: Vec<String>,
    /// Problems found.
    pub warnings: Vec<Warning>,
}

impl BoneMap {
    /// The reportable view of this map.
    pub fn report(&self, skeleton: &Skeleton, profile: &Profile) -> MapReport {
        let mut bones = IndexMap::new();
        let mut unmapped_profile = Vec::new();
        for id in profile.ids() {
            let name = profile.bone(id).name.clone();
            match &self.entries[id.index()] {
                Some(m) => {
                    bones.insert(
                        name,
                        MappedReport {
                            source: skeleton.bones[m.bone.index()].name.clone(),
                            node: skeleton.bones[m.bone.index()].node,
                            confidence: (m.confidence * 100.0).round() / 100.0,
                            reason: m.reason.clone(),
                            origin: m.origin,
                        },
                    );
                }
                None => unmapped_profile.push(name),
            }
        }
        MapReport {
            profile: profile.name.clone(),
            skeleton: skeleton.name.clone(),
            bones,
            unmapped_profile,
            unmapped_source: self
                .unmapped_source(skeleton)
                .into_iter()
                .map(|b| skeleton.bones[b.index()].name.clone())
                .collect(),
            missing_required: self
                .missing_required(profile)
                .into_iter()
                .map(|id| profile.bone(id).name.clone())
                .collect(),
            warnings: self.warnings.clone(),
        }
    }
}
