//! Writing a VRM animation (`.vrma`, the `VRMC_vrm_animation` 1.0 extension) of one clip of a
//! VRM character's skeleton, so that VRM players (three-vrm-animation, UniVRM) play it on the
//! character's normalized humanoid bones.
//!
//! A VRM player does not key the character's raw bones: it keys one normalized node per humanoid
//! bone, whose rest has no rotation (axes as the model's), and drives each raw bone from it:
//! raw bone `b` turns, in model space, by its normalized rotation after its nearest humanoid
//! ancestor's turn (three-vrm's `VRMHumanoidRig.update`). So the animation holds, per humanoid
//! bone and frame, `n_b = D_h⁻¹ · D_b`, where `D_x = R_x(t) · R_x(rest)⁻¹` is bone `x`'s turn in
//! model space from its rest in the clip, and `h` is the nearest ancestor of `b` that is a humanoid
//! bone (none for the hips); and the hips' model-space position. Turns of the bones between two
//! humanoid bones (a non-humanoid spine bone, an armature or root node above the hips, root
//! motion) are folded into the humanoid bones below them.
//!
//! The file's nodes are those humanoid bones with no rest rotation (each at its rest position
//! in model space, the VRM T-pose the extension asks for), so readers that turn the animation by
//! the nodes' rests (three-vrm-animation composes the parent's and the bone's world rest
//! rotations) read `n_b` back as written, and the hips' rest height is the character's own (the
//! hips' translation is scaled by the playing character's hips height over it).
//!
//! VRMA data is in the convention of VRM 1.0, whose models face +Z. A VRM 0.x model faces −Z in
//! its file, and players turn a VRMA about +Y by 180° for it (three-vrm-animation negates the
//! rotations' and the hips translation's X and Z for `metaVersion` 0). So the animation of a
//! skeleton whose humanoid map is declared by VRM 0.x (`DeclaredSource::Vrm0`) is written turned
//! by that half turn, whichever way the file's geometry faces: a player then turns it back.

use super::build::{Builder, ChannelKeys};
use crate::model::{Clip, DeclaredSource, Model, Pose, Transform};
use glam::Quat;
use serde_json::json;

/// The spec version written into `VRMC_vrm_animation.specVersion`.
const SPEC_VERSION: &str = "1.0";

/// Why a clip cannot be written as a VRM animation.
#[derive(Debug, thiserror::Error)]
pub enum VrmaError {
    /// The clip's skeleton declares no VRM humanoid (the file is no VRM).
    #[error(
        "skeleton `{skeleton}` declares no VRM humanoid: a VRM animation plays on a VRM \
         character's humanoid bones"
    )]
    NoHumanoid {
        /// The skeleton's name.
        skeleton: String,
    },
    /// The declared humanoid has no hips.
    #[error("the VRM humanoid of skeleton `{skeleton}` declares no `hips` bone")]
    NoHips {
        /// The skeleton's name.
        skeleton: String,
    },
    /// The clip animates a skeleton the model does not have.
    #[error("clip `{clip}` animates skeleton {skeleton}, which the model does not have")]
    NoSkeleton {
        /// The clip's name.
        clip: String,
        /// The skeleton number.
        skeleton: u32,
    },
    /// The document built could not be read back (a bug: it names the file to be written).
    #[error(transparent)]
    File(#[from] super::Error),
}

/// The VRM 1.0 id of a humanoid bone id as the declaring extension names it: VRM 0.x counts a
/// thumb's bones from the proximal phalanx (`thumbProximal`, `thumbIntermediate`,
/// `thumbDistal`), VRM 1.0 from the metacarpal (`thumbMetacarpal`, `thumbProximal`,
/// `thumbDistal`), as three-vrm reads a VRM 0.x humanoid.
pub fn vrm1_bone_id(id: &str, source: DeclaredSource) -> String {
    if source == DeclaredSource::Vrm0 {
        for (from, to) in [
            ("ThumbProximal", "ThumbMetacarpal"),
            ("ThumbIntermediate", "ThumbProximal"),
        ] {
            if let Some(side) = id.strip_suffix(from) {
                return format!("{side}{to}");
            }
        }
    }
    id.to_string()
}

/// The model-space rotation of a world matrix (its scale taken out).
fn rotation_of(m: &glam::Mat4) -> Quat {
    Transform::from_mat4(m).rotation
}

/// GLB bytes of a VRM animation of `clip` (see the module's documentation): its humanoid bones'
/// rotations and the hips' translation, sampled at the clip's shared key times (every 1/30 s when
/// its tracks have different ones), from the skeleton's humanoid map as the file declares it.
/// The eyes are left out (the extension gives them to `lookAt`, which is not written).
pub fn vrma_bytes(model: &Model, clip: &Clip, generator: &str) -> Result<Vec<u8>, VrmaError> {
    let skeleton = model
        .get_skeleton(clip.skeleton)
        .ok_or_else(|| VrmaError::NoSkeleton {
            clip: clip.name.clone(),
            skeleton: clip.skeleton.0,
        })?;
    let declared = skeleton
        .declared
        .as_ref()
        .ok_or_else(|| VrmaError::NoHumanoid {
            skeleton: skeleton.name.clone(),
        })?;
    // Which humanoid bone each bone is (by its VRM 1.0 id), eyes included: they are humanoid
    // bones to the player, whose raw update follows them, though they get no track.
    let mut humanoid: Vec<Option<String>> = vec![None; skeleton.bones.len()];
    for (id, bone) in &declared.bones {
        if let Some(slot) = humanoid.get_mut(bone.index()) {
            slot.get_or_insert_with(|| vrm1_bone_id(id, declared.source));
        }
    }
    let hips = humanoid
        .iter()
        .position(|h| h.as_deref() == Some("hips"))
        .ok_or_else(|| VrmaError::NoHips {
            skeleton: skeleton.name.clone(),
        })?;
    // The nearest ancestor of each bone that is a humanoid bone.
    let ancestor: Vec<Option<usize>> = (0..skeleton.bones.len())
        .map(|i| {
            let mut at = skeleton.bones[i].parent;
            while let Some(p) = at {
                if humanoid[p.index()].is_some() {
                    return Some(p.index());
                }
                at = skeleton.bones[p.index()].parent;
            }
            None
        })
        .collect();
    let written: Vec<usize> = (0..skeleton.bones.len())
        .filter(|&i| {
            humanoid[i]
                .as_deref()
                .is_some_and(|id| id != "leftEye" && id != "rightEye")
        })
        .collect();
    // The half turn into VRM 1.0's convention for a VRM 0.x skeleton.
    let turn = match declared.source {
        DeclaredSource::Vrm0 => Quat::from_rotation_y(std::f32::consts::PI),
        DeclaredSource::Vrm1 | DeclaredSource::VrmAnimation => Quat::IDENTITY,
    };
    let rest = skeleton.rest_world();
    let rest_turn: Vec<Quat> = rest.iter().map(|m| rotation_of(m).inverse()).collect();

    let mut b = Builder::new(generator);
    let mut node_of: Vec<Option<usize>> = vec![None; skeleton.bones.len()];
    for &i in &written {
        let at = |k: usize| turn * rest[k].w_axis.truncate();
        let parent = ancestor_written(&ancestor, &node_of, i);
        let translation = match parent {
            Some((k, _)) => at(i) - at(k),
            None => at(i),
        };
        let id = humanoid[i].as_deref().expect("written bones are humanoid");
        let node = b.node(
            id,
            &Transform::from_translation(translation),
            parent.map(|(_, n)| n),
        );
        node_of[i] = Some(node);
    }

    let times = clip.sample_times(None);
    let mut rotations: Vec<Vec<f32>> = vec![Vec::with_capacity(times.len() * 4); written.len()];
    let mut last: Vec<Quat> = vec![Quat::IDENTITY; written.len()];
    let mut hips_at: Vec<f32> = Vec::with_capacity(times.len() * 3);
    let mut pose = Pose::rest(skeleton);
    let mut turned: Vec<Quat> = vec![Quat::IDENTITY; skeleton.bones.len()];
    for &t in &times {
        pose.sample_into(clip, t);
        let world = pose.world(skeleton);
        for (k, m) in world.iter().enumerate() {
            turned[k] = rotation_of(m) * rest_turn[k];
        }
        for (w, &i) in written.iter().enumerate() {
            let own = match ancestor[i] {
                Some(h) => turned[h].inverse() * turned[i],
                None => turned[i],
            };
            let mut q = (turn * own * turn.inverse()).normalize();
            // Keys on one side of the quaternion sphere, for players that interpolate them
            // componentwise.
            if q.dot(last[w]) < 0.0 {
                q = -q;
            }
            last[w] = q;
            rotations[w].extend_from_slice(&q.to_array());
        }
        hips_at.extend_from_slice(&(turn * world[hips].w_axis.truncate()).to_array());
    }

    let mut channels = Vec::with_capacity(written.len() + 1);
    channels.push(ChannelKeys {
        node: node_of[hips].expect("the hips are written"),
        path: "translation",
        interpolation: "LINEAR",
        times: times.clone(),
        values: hips_at,
    });
    for (w, &i) in written.iter().enumerate() {
        channels.push(ChannelKeys {
            node: node_of[i].expect("written bones have nodes"),
            path: "rotation",
            interpolation: "LINEAR",
            times: times.clone(),
            values: std::mem::take(&mut rotations[w]),
        });
    }
    b.animation(&clip.name, &channels);
    let bones: serde_json::Map<String, serde_json::Value> = written
        .iter()
        .map(|&i| {
            let id = humanoid[i].clone().expect("written bones are humanoid");
            (id, json!({ "node": node_of[i] }))
        })
        .collect();
    b.extension(
        "VRMC_vrm_animation",
        json!({"specVersion": SPEC_VERSION, "humanoid": {"humanBones": bones}}),
    );
    Ok(b.finish())
}

/// The nearest written humanoid ancestor of bone `i` and its node (the one below which `i`'s node
/// goes), skipping the eyes, which are not written.
fn ancestor_written(
    ancestor: &[Option<usize>],
    node_of: &[Option<usize>],
    i: usize,
) -> Option<(usize, usize)> {
    let mut at = ancestor[i];
    while let Some(k) = at {
        if let Some(n) = node_of[k] {
            return Some((k, n));
        }
        at = ancestor[k];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        Bone, BoneId, BoneTracks, DeclaredMap, Interpolation, Skeleton, SkeletonId, Track,
    };
    use glam::{Mat4, Vec3};

    /// hips → spine → (non-humanoid `extra`) → chest, hips at 1 m: a VRM skeleton of `source`.
    fn rig(source: DeclaredSource) -> Model {
        let bone = |name: &str, parent: Option<u32>, y: f32| Bone {
            name: name.into(),
            parent: parent.map(BoneId),
            rest: Transform::from_translation(Vec3::Y * y),
            is_joint: true,
            weighted: None,
            node: None,
        };
        let skeleton = Skeleton {
            name: "rig".into(),
            bones: vec![
                bone("Hips", None, 1.0),
                bone("Spine", Some(0), 0.1),
                bone("Extra", Some(1), 0.1),
                bone("Chest", Some(2), 0.1),
            ],
            skins: vec![],
            attachments: vec![],
            base: Mat4::IDENTITY,
            base_nodes: vec![],
            declared: Some(DeclaredMap {
                source,
                bones: vec![
                    ("chest".into(), BoneId(3)),
                    ("hips".into(), BoneId(0)),
                    ("spine".into(), BoneId(1)),
                ],
            }),
        };
        let track = |q: Quat| Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: vec![Quat::IDENTITY, q].into(),
        };
        let mut tracks = vec![BoneTracks::default(); 4];
        tracks[0].translation = Some(Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: vec![Vec3::Y, Vec3::new(0.5, 1.0, 0.25)].into(),
        });
        tracks[1].rotation = Some(track(Quat::from_rotation_x(0.3)));
        tracks[2].rotation = Some(track(Quat::from_rotation_z(0.2)));
        Model {
            skeletons: vec![skeleton],
            clips: vec![Clip {
                name: "bend".into(),
                skeleton: SkeletonId(0),
                tracks,
                opaque: vec![],
                source: None,
                motion_scale: None,
                curves: vec![],
            }],
            ..Model::default()
        }
    }

    fn parse(glb: &[u8]) -> serde_json::Value {
        let n = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        serde_json::from_slice(&glb[20..20 + n]).unwrap()
    }

    #[test]
    fn thumb_ids_of_vrm0_count_from_the_metacarpal() {
        let v0 = DeclaredSource::Vrm0;
        assert_eq!(vrm1_bone_id("leftThumbProximal", v0), "leftThumbMetacarpal");
        assert_eq!(
            vrm1_bone_id("rightThumbIntermediate", v0),
            "rightThumbProximal"
        );
        assert_eq!(vrm1_bone_id("leftThumbDistal", v0), "leftThumbDistal");
        let v1 = DeclaredSource::Vrm1;
        assert_eq!(vrm1_bone_id("leftThumbProximal", v1), "leftThumbProximal");
    }

    #[test]
    fn declares_the_humanoid_with_rests_without_rotation() {
        let m = rig(DeclaredSource::Vrm1);
        let j = parse(&vrma_bytes(&m, &m.clips[0], "test").unwrap());
        assert_eq!(j["extensionsUsed"], json!(["VRMC_vrm_animation"]));
        let ext = &j["extensions"]["VRMC_vrm_animation"];
        assert_eq!(ext["specVersion"], "1.0");
        let bones = ext["humanoid"]["humanBones"].as_object().unwrap();
        assert_eq!(bones.len(), 3);
        let chest = bones["chest"]["node"].as_u64().unwrap() as usize;
        // The chest hangs from the spine, 0.2 above it (the non-humanoid bone between is gone).
        let t: Vec<f64> = j["nodes"][chest]["translation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            (t[0].abs() + (t[1] - 0.2).abs() + t[2].abs()) < 1e-6,
            "{t:?}"
        );
        assert!(j["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n.get("rotation").is_none()));
        let channels = j["animations"][0]["channels"].as_array().unwrap();
        assert_eq!(channels.len(), 4, "hips translation and three rotations");
    }

    #[test]
    fn no_humanoid_is_an_error_naming_the_skeleton() {
        let mut m = rig(DeclaredSource::Vrm1);
        m.skeletons[0].declared = None;
        let e = vrma_bytes(&m, &m.clips[0], "test").unwrap_err();
        assert!(e.to_string().contains("`rig`"), "{e}");
    }

    /// The keys as a player reads them: composing each humanoid bone's rotation below its
    /// humanoid parent's reproduces the clip's model-space turns of the humanoid bones (the
    /// non-humanoid bone's turn folded into the chest), and the hips position.
    #[test]
    fn keys_reproduce_the_turns_in_model_space() {
        for source in [DeclaredSource::Vrm1, DeclaredSource::Vrm0] {
            let m = rig(source);
            let glb = vrma_bytes(&m, &m.clips[0], "test").unwrap();
            let doc =
                super::super::read_bytes(&glb, "t.vrma".as_ref(), &super::super::Resources::None)
                    .unwrap();
            let s = &doc.model.skeletons[0];
            let c = &doc.model.clips[0];
            let at = |name: &str| s.find(name).unwrap();
            let q = |name: &str| {
                c.tracks[at(name).index()]
                    .rotation
                    .as_ref()
                    .unwrap()
                    .sample_unit(1.0)
            };
            let turn = match source {
                DeclaredSource::Vrm0 => Quat::from_rotation_y(std::f32::consts::PI),
                _ => Quat::IDENTITY,
            };
            let back = |x: Quat| turn.inverse() * x * turn;
            let spine = Quat::from_rotation_x(0.3);
            let chest = spine * Quat::from_rotation_z(0.2);
            assert!(back(q("hips")).angle_between(Quat::IDENTITY) < 1e-5);
            assert!(back(q("spine")).angle_between(spine) < 1e-5);
            assert!((back(q("spine")) * back(q("chest"))).angle_between(chest) < 1e-5);
            let hips = c.tracks[at("hips").index()]
                .translation
                .as_ref()
                .unwrap()
                .sample(1.0);
            let want = Vec3::new(0.5, 1.0, 0.25);
            let want = turn * want;
            assert!((hips - want).length() < 1e-6, "{source:?}: {hips}");
        }
    }
}
