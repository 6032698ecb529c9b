//! Issue 4 (rest normalization): every invariant, with default options, on every fixture and
//! every humanoid in ../shared/assets, measured on the file written and read back.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::check;
use skelnorm::gltf_io::{self, Document};
use skelnorm::mapping::{map_skeleton, BoneMap, MapOptions};
use skelnorm::model::{Model, SkeletonId};
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
use std::path::{Path, PathBuf};

/// A normalized file: the input, the output as read back, and each normalized skeleton's map.
struct Normalized {
    input: Document,
    output: Document,
    out_path: PathBuf,
    /// What the output must play like in three.js: the input, with the whole scene turned as
    /// the rest fix turned it.
    reference: PathBuf,
    maps: Vec<(SkeletonId, BoneMap)>,
    _dir: tempfile::TempDir,
}

fn options() -> NormalizeOptions {
    NormalizeOptions {
        measure: true,
        ..NormalizeOptions::default()
    }
}

fn normalize_file(path: &Path) -> Option<Normalized> {
    normalize_file_with(path, &options())
}

fn normalize_file_with(path: &Path, options: &NormalizeOptions) -> Option<Normalized> {
    let profile = Profile::humanoid();
    let input = gltf_io::read(path).unwrap();
    let mut doc = input.clone();
    let report = normalize(&mut doc.model, profile, options).ok()?;
    let dir = tempfile::tempdir().unwrap();
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let ext = if path.extension().is_some_and(|e| e == "gltf") {
        "gltf"
    } else {
        "glb"
    };
    let out_path = dir.path().join(format!("{name}.{ext}"));
    doc.write(&out_path).unwrap();
    let mut output = gltf_io::read(&out_path).unwrap();
    // The file as read back is turned as the scene was, relative to the input.
    output.model.scene_turn = doc.model.scene_turn;
    // Its skins' vertices moved into a new bind (issue 40): compared as the model was.
    common::unbake(&doc.model, &mut output.model);
    let reference = if doc.model.scene_turn == glam::Quat::IDENTITY {
        path.to_path_buf()
    } else {
        common::turned_copy(path, doc.model.scene_turn.to_array(), dir.path())
    };
    let maps = report
        .skeletons
        .iter()
        .filter(|s| s.skipped.is_none())
        .map(|s| {
            (
                s.index,
                map_skeleton(
                    input.model.skeleton(s.index),
                    profile,
                    &MapOptions::default(),
                ),
            )
        })
        .collect();
    Some(Normalized {
        input,
        output,
        out_path,
        reference,
        maps,
        _dir: dir,
    })
}

/// Every fixture and asset that is a humanoid (the others must be refused).
fn humanoids() -> Vec<Normalized> {
    let mut out = Vec::new();
    for path in common::all_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let refused = [
            "quadruped.glb",
            "Fox.glb",
            "RiggedSimple.glb",
            "SimpleSkin.gltf",
        ]
        .contains(&name.as_str());
        match normalize_file(&path) {
            Some(n) => {
                assert!(!refused, "{name}: is not a humanoid but was normalized");
                out.push(n);
            }
            None => assert!(refused, "{name}: a humanoid was refused"),
        }
    }
    out
}

#[test]
fn skin_is_unchanged_at_every_frame() {
    for n in humanoids() {
        for (k, _) in &n.maps {
            let c = check::skin(&n.input.model, &n.output.model, *k);
            eprintln!(
                "{}: {} frames of {} clips, max error {:e}",
                n.input.path.display(),
                c.frames,
                c.clips,
                c.max_error
            );
            assert!(c.max_error <= 1e-5, "{}: {:?}", n.input.path.display(), c);
            let clips = n
                .input
                .model
                .clips
                .iter()
                .filter(|c| c.skeleton == *k)
                .count();
            assert_eq!(
                c.clips,
                clips,
                "{}: every clip compared",
                n.input.path.display()
            );
        }
    }
}

#[test]
fn rest_is_a_t_pose_facing_plus_z_with_y_toward_the_tail() {
    let profile = Profile::humanoid();
    let mut palms = 0;
    for n in humanoids() {
        for (k, map) in &n.maps {
            // As the file's clients show it: a VRM 0.x output faces −Z in its file (issue 40).
            let r = check::rest_as_shown(&n.output.model, *k, map, profile);
            let file = n.input.path.display();
            assert!(r.max_direction_deg <= 1.0, "{file}: {r:?}");
            assert!(r.max_tail_deg <= 0.01, "{file}: {r:?}");
            assert!(r.faces_plus_z, "{file}: {r:?}");
            assert!(r.bones >= 15, "{file}: {r:?}");
            for (bone, deg) in &r.roll_deg {
                // Hands: the palm's normal (the plane of hand direction and knuckle line) is
                // the profile's, which faces −Y (checked against the profile below).
                assert!(*deg <= 5.0, "{file}: {bone} rolled {deg}°");
                palms += bone.ends_with("Hand") as usize;
            }
        }
    }
    assert!(palms >= 2, "some rigs have measurable palms");
}

#[test]
fn the_profile_palms_face_down() {
    let p = Profile::humanoid();
    let pos = p.reference_positions();
    for side in ["Left", "Right"] {
        let at = |n: &str| pos[p.find(&format!("{side}{n}")).unwrap().index()];
        let dir = at("MiddleProximal") - at("Hand");
        let knuckles = at("LittleProximal") - at("IndexProximal");
        // Back of the hand = direction × knuckle line for the left hand, the reverse for the right.
        let back = if side == "Left" {
            dir.cross(knuckles)
        } else {
            knuckles.cross(dir)
        };
        assert!(
            back.normalize().dot(glam::Vec3::Y) > 0.999,
            "{side}: {back}"
        );
    }
}

#[test]
fn normalizing_a_normalized_file_changes_nothing() {
    let profile = Profile::humanoid();
    for n in humanoids() {
        let mut again = n.output.model.clone();
        normalize(&mut again, profile, &options()).unwrap();
        assert_close(&n.output.model, &again, &n.input.path);
    }
}

fn assert_close(a: &Model, b: &Model, file: &Path) {
    let f = file.display();
    for (sa, sb) in a.skeletons.iter().zip(&b.skeletons) {
        assert!(sa.base.abs_diff_eq(sb.base, 1e-6), "{f}: base");
        for (ba, bb) in sa.bones.iter().zip(&sb.bones) {
            let (ra, rb) = (ba.rest, bb.rest);
            let same = ra.translation.abs_diff_eq(rb.translation, 1e-6)
                && ra.rotation.dot(rb.rotation).abs() > 1.0 - 1e-6
                && ra.scale.abs_diff_eq(rb.scale, 1e-6);
            assert!(same, "{f}: bone `{}` rest {ra:?} became {rb:?}", ba.name);
        }
        for (ka, kb) in sa.skins.iter().zip(&sb.skins) {
            for (ma, mb) in ka
                .inverse_bind_matrices
                .iter()
                .zip(&kb.inverse_bind_matrices)
            {
                assert!(
                    ma.abs_diff_eq(
                        *mb,
                        1e-5 * ma
                            .abs()
                            .to_cols_array()
                            .iter()
                            .fold(1.0f32, |x, y| x.max(*y))
                    ),
                    "{f}: ibm"
                );
            }
        }
    }
    for (ca, cb) in a.clips.iter().zip(&b.clips) {
        assert_eq!(
            ca.channel_count(),
            cb.channel_count(),
            "{f}: clip `{}` tracks",
            ca.name
        );
        for (ta, tb) in ca.tracks.iter().zip(&cb.tracks) {
            if let (Some(x), Some(y)) = (&ta.rotation, &tb.rotation) {
                for (p, q) in x.values.iter().zip(y.values.iter()) {
                    assert!(
                        (*p - *q).length() <= 1e-6 || (*p + *q).length() <= 1e-6,
                        "{f}: clip `{}` rotation",
                        ca.name
                    );
                }
            }
            if let (Some(x), Some(y)) = (&ta.translation, &tb.translation) {
                for (p, q) in x.values.iter().zip(y.values.iter()) {
                    assert!(
                        p.abs_diff_eq(*q, 1e-6 * p.length().max(1.0)),
                        "{f}: clip `{}` translation",
                        ca.name
                    );
                }
            }
        }
    }
}

/// The clip-sharing test: two different normalized rigs; playing one's clip on the other
/// by copying mapped bones' local rotations gives the same global bone directions.
#[test]
fn clips_transfer_between_normalized_rigs() {
    let profile = Profile::humanoid();
    let mut pairs = vec![(
        common::root().join("fixtures/mixamo.glb"),
        common::root().join("fixtures/ue_zup.glb"),
    )];
    if let (Some(a), Some(b), Some(c)) = (
        common::asset("threejs/RobotExpressive.glb"),
        common::asset("quaternius/ModularMen_Casual.glb"),
        common::asset("vrm/test.vrma"),
    ) {
        pairs.push((a, b.clone()));
        pairs.push((c, b));
    }
    for (n, (src, dst)) in pairs.into_iter().enumerate() {
        let (s, d) = (normalize_file(&src).unwrap(), normalize_file(&dst).unwrap());
        if n == 0 {
            // The control: the same copy between the raw rigs goes wrong, so the test can fail.
            let (sm, dm) = (&s.maps[0].1, &d.maps[0].1);
            let (ss, ds) = (&s.input.model.skeletons[0], &d.input.model.skeletons[0]);
            let (raw, _) = check::transfer((ss, sm, &s.input.model.clips[0]), (ds, dm), profile);
            assert!(raw > 10.0, "raw rigs should not share clips: {raw}°");
        }
        let (sm, dm) = (&s.maps[0].1, &d.maps[0].1);
        let (ss, ds) = (&s.output.model.skeletons[0], &d.output.model.skeletons[0]);
        let clips: Vec<_> = s
            .output
            .model
            .clips
            .iter()
            .filter(|c| c.skeleton == SkeletonId(0))
            .collect();
        assert!(!clips.is_empty());
        for clip in clips {
            let (worst, at) = check::transfer((ss, sm, clip), (ds, dm), profile);
            eprintln!(
                "{} `{}` → {}: {worst:.4}° ({at})",
                src.display(),
                clip.name,
                dst.display()
            );
            assert!(!at.is_empty(), "some bones are compared");
            assert!(
                worst <= 0.5,
                "{} `{}` on {}: {worst}° ({at})",
                src.display(),
                clip.name,
                dst.display()
            );
        }
    }
}

#[test]
fn outputs_validate_and_play_alike_in_three_js() {
    for n in humanoids() {
        let file = n.input.path.display().to_string();
        if let (Some(before), Some(after)) = (
            common::validator_errors(&n.input.path),
            common::validator_errors(&n.out_path),
        ) {
            assert!(
                after <= before,
                "{file}: {after} validator errors, input had {before}"
            );
        }
        if common::three_skips(&n.input.path) {
            continue;
        }
        let clips = n.input.model.clips.len();
        if clips <= 1 {
            // The shared check as it is: one clip (or the rest pose) cannot leak state.
            if let Some(e) = common::three_check(&n.reference, &n.out_path) {
                let rest_only = clips == 0;
                // With no clip, three.js compares the rest pose, which the T-pose changes.
                assert!(rest_only || e <= 1e-5, "{file}: three.js error {e}");
            }
        }
        // Every clip on freshly loaded scenes (the shared check plays clips one after another
        // on the same scene, so bones a clip leaves alone keep the previous clip's pose).
        if let Some((raw, unit_free)) = common::three_per_clip(&n.reference, &n.out_path) {
            eprintln!("{file}: three.js per clip {raw:e} raw, {unit_free:e} unit-free");
            assert!(
                clips == 0 || unit_free <= 1e-5,
                "{file}: three.js error {unit_free}"
            );
        }
    }
}

#[test]
fn vrm_extensions_still_point_at_the_same_bones() {
    for n in humanoids() {
        let ext = |d: &Document| d.json().get("extensions").cloned().unwrap_or_default();
        let (a, b) = (ext(&n.input), ext(&n.output));
        for key in ["VRM", "VRMC_vrm", "VRMC_vrm_animation"] {
            if let Some(v) = a.get(key) {
                assert_eq!(
                    Some(v),
                    b.get(key),
                    "{}: {key} changed",
                    n.input.path.display()
                );
            }
        }
        for (sa, sb) in n
            .input
            .model
            .skeletons
            .iter()
            .zip(&n.output.model.skeletons)
        {
            assert_eq!(
                sa.declared,
                sb.declared,
                "{}: declared map",
                n.input.path.display()
            );
            // Bones keep their nodes (names change by renaming, tested in tests/tracks.rs).
            let nodes =
                |s: &skelnorm::model::Skeleton| s.bones.iter().map(|b| b.node).collect::<Vec<_>>();
            assert_eq!(nodes(sa), nodes(sb));
        }
    }
}

/// A character facing −Z whose bones hang straight from the scene: by default the whole scene
/// turns (no node is added, nothing above the bones); keeping the scene's transform, the turn
/// that keeps the scene as it was needs a new node above the bones (the writer adds one).
#[test]
fn facing_turn_of_bones_hanging_from_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/vrm0.vrm")).unwrap());
    let armature = json["scenes"][0]["nodes"][0].as_u64().unwrap() as usize;
    let children = json["nodes"][armature]["children"].take();
    json["nodes"][armature]
        .as_object_mut()
        .unwrap()
        .remove("children");
    let mut roots = children.as_array().unwrap().clone();
    roots.extend(
        json["scenes"][0]["nodes"].as_array().unwrap()[1..]
            .iter()
            .cloned(),
    );
    json["scenes"][0]["nodes"] = roots.into();
    // A plain glTF facing −Z (a VRM 0.x file faces −Z by convention and is not turned).
    json.as_object_mut().unwrap().remove("extensions");
    json.as_object_mut().unwrap().remove("extensionsUsed");
    let input = dir.path().join("loose.glb");
    std::fs::write(&input, common::join_glb(&json, &bin)).unwrap();
    // Godot's workflow names the skeleton (`--skeleton-name`): the node that holds the name
    // is put above the bones, and must not turn again with the scene.
    for (keep, name) in [
        (false, None),
        (true, None),
        (false, Some("GeneralSkeleton")),
    ] {
        let mut options = options();
        options.rest.keep_scene_transform = keep;
        options.rename.skeleton_name = name.map(str::to_string);
        let n = normalize_file_with(&input, &options).unwrap();
        let nodes_before = n.input.json()["nodes"].as_array().unwrap().len();
        assert_eq!(
            n.output.json()["nodes"].as_array().unwrap().len(),
            nodes_before + usize::from(keep || name.is_some()),
            "a node added only when the scene keeps its transform or the skeleton is named"
        );
        let base = n.output.model.skeletons[0].base;
        let identity = base.abs_diff_eq(glam::Mat4::IDENTITY, 1e-6);
        assert_eq!(identity, !keep, "base {base}");
        // In the scene by default; keeping the scene's transform, in the skeleton's own space
        // (the frame the rest fix reports for a folded base), since the scene faces as before.
        let skeleton = &n.output.model.skeletons[0];
        let r = if keep {
            check::rest_in(
                skeleton,
                &n.maps[0].1,
                Profile::humanoid(),
                glam::Quat::IDENTITY,
            )
        } else {
            check::rest_as_shown(
                &n.output.model,
                SkeletonId(0),
                &n.maps[0].1,
                Profile::humanoid(),
            )
        };
        assert!(r.faces_plus_z && r.max_tail_deg <= 0.01, "{r:?}");
        if keep {
            let scene = check::rest(skeleton, &n.maps[0].1, Profile::humanoid());
            assert!(!scene.faces_plus_z, "the kept scene still faces −Z");
        }
        let c = check::skin(&n.input.model, &n.output.model, SkeletonId(0));
        assert!(c.max_error <= 1e-5 && c.clips == 3, "{c:?}");
        if let (Some(before), Some(after)) = (
            common::validator_errors(&input),
            common::validator_errors(&n.out_path),
        ) {
            assert!(
                after <= before,
                "{after} validator errors, input had {before}"
            );
        }
        if let Some((_, e)) = common::three_per_clip(&n.reference, &n.out_path) {
            assert!(e <= 1e-5, "three.js per clip {e}");
        }
    }
}
