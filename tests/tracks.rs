//! Issue 5 (track stripping, renaming): a complete `normalize` (map → rest → strip → rename) on
//! every fixture and every humanoid in ../shared/assets, measured on the file written and read
//! back: translation tracks, profile names, skin, unmapped-bone options, clip sharing by name,
//! validator messages.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::check;
use skelnorm::gltf_io::{self, Document};
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::WarningCode;
use skelnorm::model::{BoneId, Skeleton, SkeletonId};
use skelnorm::pipeline::{normalize, NormalizeOptions, NormalizeReport, Stages};
use skelnorm::profile::Profile;
use skelnorm::tracks::{rebind, TrackOptions, UnmappedBones, COMPANION_SUFFIX};
use std::path::{Path, PathBuf};

/// One file normalized and written: the input, the output read back, the report.
struct Run {
    input: Document,
    output: Document,
    out_path: PathBuf,
    report: NormalizeReport,
    _dir: tempfile::TempDir,
}

fn run(path: &Path, options: &NormalizeOptions) -> Option<Run> {
    let input = gltf_io::read(path).unwrap();
    let mut doc = input.clone();
    let report = normalize(&mut doc.model, Profile::humanoid(), options).ok()?;
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join(path.file_name().unwrap());
    doc.write(&out_path).unwrap();
    let mut output = gltf_io::read(&out_path).unwrap();
    // The file as read back is turned as the scene was, relative to the input.
    output.model.scene_turn = doc.model.scene_turn;
    // Its skins' vertices moved into a new bind (issue 40): compared as the model was.
    common::unbake(&doc.model, &mut output.model);
    Some(Run {
        input,
        output,
        out_path,
        report,
        _dir: dir,
    })
}

fn defaults() -> NormalizeOptions {
    NormalizeOptions {
        measure: true,
        ..NormalizeOptions::default()
    }
}

fn with_unmapped(u: UnmappedBones) -> NormalizeOptions {
    NormalizeOptions {
        tracks: TrackOptions {
            unmapped_bones: u,
            ..TrackOptions::default()
        },
        ..defaults()
    }
}

fn humanoid_files() -> Vec<PathBuf> {
    common::all_files()
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            ![
                "quadruped.glb",
                "Fox.glb",
                "RiggedSimple.glb",
                "SimpleSkin.gltf",
            ]
            .contains(&name.as_ref())
        })
        .collect()
}

/// The output has no more validator errors than the input, and no more `UNUSED_OBJECT` infos:
/// whatever stripping left unused went with it.
fn no_new_problems(input: &Path, output: &Path) {
    let name = input.display();
    if let (Some(a), Some(b)) = (
        common::validator_codes(input),
        common::validator_codes(output),
    ) {
        let count = |m: &std::collections::BTreeMap<String, u64>, code: &str| {
            m.get(code).copied().unwrap_or(0)
        };
        assert!(
            count(&b, "UNUSED_OBJECT") <= count(&a, "UNUSED_OBJECT"),
            "{name}: unused objects left behind: {b:?} (input {a:?})"
        );
    }
    if let (Some(a), Some(b)) = (
        common::validator_errors(input),
        common::validator_errors(output),
    ) {
        assert!(b <= a, "{name}: {b} validator errors (input {a})");
    }
}

fn bone_at(s: &Skeleton, node: Option<u32>) -> BoneId {
    BoneId(
        s.bones
            .iter()
            .position(|b| b.node == node)
            .expect("a bone at that node") as u32,
    )
}

/// The done-when of the issue with default options: only Root and Hips (and bones the rig moves
/// by translation, with a warning) carry translation tracks; mapped bones carry profile names;
/// clips play identically; no new validator errors; nothing unused left behind.
#[test]
fn default_normalize_strips_positions_renames_and_plays_the_same() {
    let mut seen = 0;
    for path in humanoid_files() {
        let r = run(&path, &defaults()).unwrap_or_else(|| panic!("{}: refused", path.display()));
        let name = path.display();
        for sk in r.report.skeletons.iter().filter(|s| s.skipped.is_none()) {
            let k = sk.index;
            let (sin, sout) = (r.input.model.skeleton(k), r.output.model.skeleton(k));
            let tracks = sk.tracks.as_ref().unwrap();
            // Bones allowed a translation track: Root, Hips, and the warned movers (named in
            // the report as they were before renaming).
            let mut allowed: Vec<BoneId> = ["Root", "Hips"]
                .iter()
                .filter_map(|p| sk.mapping.bones.get(*p))
                .map(|m| bone_at(sin, m.node))
                .collect();
            let movers: Vec<&String> = tracks
                .warnings
                .iter()
                .filter(|w| w.code == WarningCode::TranslationMotion)
                .flat_map(|w| &w.bones)
                .collect();
            allowed.extend(movers.iter().map(|n| sin.find(n).unwrap()));
            for clip in r.output.model.clips.iter().filter(|c| c.skeleton == k) {
                for (b, t) in clip.tracks.iter().enumerate() {
                    if t.translation.is_some() {
                        assert!(
                            allowed.contains(&BoneId(b as u32)),
                            "{name}: clip `{}`: `{}` keeps a translation track",
                            clip.name,
                            sout.bones[b].name
                        );
                    }
                }
            }
            // Profile names, bones paired by the report's mapping (node indices).
            let rename = sk.rename.as_ref().unwrap();
            assert!(rename.warnings.is_empty(), "{name}: {:?}", rename.warnings);
            for (profile_bone, m) in &sk.mapping.bones {
                let b = bone_at(sout, m.node);
                assert_eq!(
                    &sout.bones[b.index()].name,
                    profile_bone,
                    "{name}: `{}`",
                    m.source
                );
            }
            // The skin invariant, on the file read back, bones paired by node.
            let skin = check::skin(&r.input.model, &r.output.model, k);
            assert!(
                skin.max_error <= 1e-5,
                "{name}: skin {} at {:?}",
                skin.max_error,
                skin.worst
            );
            assert_eq!(
                skin.clips,
                r.input
                    .model
                    .clips
                    .iter()
                    .filter(|c| c.skeleton == k)
                    .count()
            );
            seen += 1;
        }
        no_new_problems(&path, &r.out_path);
    }
    assert!(seen >= 8, "only {seen} skeletons normalized");
}

/// `unmapped_bones: remove` leaves no unmapped bone with a track; `separate` moves exactly those
/// tracks to `<clip>.unmapped` companions, and clip plus companion play as the input did.
#[test]
fn unmapped_bone_tracks_are_removed_or_separated() {
    let mut files = vec![common::root().join("fixtures/mixamo.glb")];
    files.extend(common::asset("threejs/RobotExpressive.glb"));
    let mut separated_any = 0;
    for path in files {
        let name = path.display();
        let kept = run(&path, &defaults()).unwrap();
        let removed = run(&path, &with_unmapped(UnmappedBones::Remove)).unwrap();
        let separated = run(&path, &with_unmapped(UnmappedBones::Separate)).unwrap();
        let sk = &kept.report.skeletons[0];
        let s = &kept.input.model.skeletons[0];
        let unmapped: Vec<BoneId> = sk
            .mapping
            .unmapped_source
            .iter()
            .map(|n| s.find(n).unwrap())
            .collect();
        let with_tracks = |r: &Run| {
            r.output
                .model
                .clips
                .iter()
                .flat_map(|c| unmapped.iter().filter(|b| !c.tracks[b.index()].is_empty()))
                .count()
        };
        assert!(
            with_tracks(&kept) > 0,
            "{name}: no unmapped bone has a track to begin with"
        );
        assert_eq!(with_tracks(&removed), 0, "{name}: remove left tracks");
        // Separate: each clip's unmapped tracks (as `keep` writes them) are exactly its
        // companion's; the clip itself has none.
        let clips = |r: &Run| r.output.model.clips.clone();
        let (kept_clips, sep_clips) = (clips(&kept), clips(&separated));
        for clip in &kept_clips {
            let main = sep_clips.iter().find(|c| c.name == clip.name).unwrap();
            let companion = sep_clips
                .iter()
                .find(|c| c.name == format!("{}{COMPANION_SUFFIX}", clip.name));
            let moved: Vec<&BoneId> = unmapped
                .iter()
                .filter(|b| !clip.tracks[b.index()].is_empty())
                .collect();
            assert_eq!(
                companion.is_some(),
                !moved.is_empty(),
                "{name}: `{}`",
                clip.name
            );
            for b in 0..s.bones.len() {
                let id = BoneId(b as u32);
                if unmapped.contains(&id) {
                    assert!(
                        main.tracks[b].is_empty(),
                        "{name}: `{}` keeps an unmapped track",
                        clip.name
                    );
                    if let Some(c) = companion {
                        assert_eq!(
                            c.tracks[b], clip.tracks[b],
                            "{name}: `{}` bone {b}",
                            clip.name
                        );
                    }
                } else {
                    assert_eq!(
                        main.tracks[b], clip.tracks[b],
                        "{name}: `{}` bone {b}",
                        clip.name
                    );
                    if let Some(c) = companion {
                        assert!(
                            c.tracks[b].is_empty(),
                            "{name}: companion holds a mapped bone"
                        );
                    }
                }
            }
            separated_any += companion.is_some() as usize;
        }
        // Played together, clip and companion are the input (the report measures them joined).
        let skin = &separated.report.skeletons[0]
            .measured
            .as_ref()
            .unwrap()
            .skin;
        assert!(
            skin.max_error <= 1e-5,
            "{name}: separated skin {}",
            skin.max_error
        );
        for r in [&removed, &separated] {
            no_new_problems(&path, &r.out_path);
        }
    }
    assert!(separated_any > 0);
}

/// The clip-sharing test: a clip of one normalized rig (mixamo), written by bone name
/// into another normalized rig's file (the UE mannequin), plays there as on its own rig: the same
/// global bone directions on every frame, on the file read back. Controls: without renaming the
/// names do not pair, and without the rest fix the directions are far off.
#[test]
fn a_clip_written_into_another_rigs_file_by_name_plays_correctly() {
    let profile = Profile::humanoid();
    let src = common::root().join("fixtures/mixamo.glb");
    let dst = common::root().join("fixtures/ue_zup.glb");
    // How the shared clip plays on the mannequin against `walk` on mixamo.
    let played_alike = |a: &Run, back: &Document| {
        let find = |d: &Document, name: &str| {
            d.model
                .clips
                .iter()
                .find(|c| c.name == name)
                .cloned()
                .unwrap()
        };
        let (own, shared) = (find(&a.output, "walk"), find(back, "walk from mixamo"));
        let (sa, sb) = (&a.output.model.skeletons[0], &back.model.skeletons[0]);
        let (ma, mb) = (
            map_skeleton(sa, profile, &MapOptions::default()),
            map_skeleton(sb, profile, &MapOptions::default()),
        );
        check::directions((sa, &ma, &own), (sb, &mb, &shared), profile)
    };
    let share = |options: &NormalizeOptions| {
        let (a, b) = (run(&src, options).unwrap(), run(&dst, options).unwrap());
        let clip = a
            .output
            .model
            .clips
            .iter()
            .find(|c| c.name == "walk")
            .unwrap();
        let mut moved = rebind(
            clip,
            &a.output.model.skeletons[0],
            &b.output.model.skeletons[0],
            SkeletonId(0),
        );
        moved.clip.name = "walk from mixamo".into();
        let mut doc = b.output.clone();
        doc.model.clips.push(moved.clip);
        let out = b._dir.path().join("shared.glb");
        doc.write(&out).unwrap();
        let back = gltf_io::read(&out).unwrap();
        (a, b, back, out, moved.missing)
    };
    let (a, _b, back, out, missing) = share(&defaults());
    // Only bones the mannequin lacks stay behind (mixamo's unmapped end bones).
    let unmapped = &a.report.skeletons[0].mapping.unmapped_source;
    for m in &missing {
        let now = a.output.model.skeletons[0]
            .bones
            .iter()
            .find(|b| &b.name == m)
            .unwrap();
        let before = &a.input.model.skeletons[0].bones
            [bone_at(&a.output.model.skeletons[0], now.node).index()];
        assert!(unmapped.contains(&before.name), "`{m}` did not carry over");
    }
    let (worst, at) = played_alike(&a, &back);
    eprintln!("mixamo `walk` written into ue_zup by name: {worst:.5}° ({at})");
    assert!(worst < 0.01, "{worst}° at {at}");
    if let Some(errors) = common::validator_errors(&out) {
        assert_eq!(errors, 0);
    }
    // Control 1: without renaming, no mapped bone pairs by name.
    let no_rename = NormalizeOptions {
        stages: Stages {
            rename: false,
            ..Stages::default()
        },
        ..defaults()
    };
    let (_, _, _, _, missing) = share(&no_rename);
    assert!(
        missing.len() >= 50,
        "raw names paired: {} missing",
        missing.len()
    );
    // Control 2: renamed but with the rests left as they were, the motion is wrong.
    let no_rest = NormalizeOptions {
        stages: Stages {
            rest: false,
            ..Stages::default()
        },
        ..defaults()
    };
    let (a, _, back, _, _) = share(&no_rest);
    let (worst, _) = played_alike(&a, &back);
    assert!(worst > 10.0, "without the rest fix: {worst}°");
}

/// `except_bone_transform` on the real files that animate other things (RobotExpressive: a
/// channel of a node outside the skeleton in every clip; test.vrma: its expression nodes): no
/// such channel is left, bone tracks are untouched, nothing unused stays behind.
#[test]
fn channels_that_are_not_bone_transforms_go_when_asked() {
    let options = NormalizeOptions {
        tracks: TrackOptions {
            except_bone_transform: true,
            ..TrackOptions::default()
        },
        ..defaults()
    };
    let files = common::require_any(&["threejs/RobotExpressive.glb", "vrm/test.vrma"]);
    for path in files {
        let name = path.display();
        let kept = run(&path, &defaults()).unwrap();
        let r = run(&path, &options).unwrap();
        let opaque = |r: &Run| {
            r.output
                .model
                .clips
                .iter()
                .map(|c| c.opaque.len())
                .sum::<usize>()
        };
        assert!(opaque(&kept) > 0, "{name}: nothing to remove to begin with");
        assert_eq!(opaque(&r), 0, "{name}");
        let removed: usize = r.report.skeletons[0]
            .tracks
            .as_ref()
            .unwrap()
            .clips
            .iter()
            .flat_map(|c| &c.removed)
            .filter(|t| t.reason == skelnorm::tracks::StripReason::NotBoneTransform)
            .count();
        assert_eq!(
            removed,
            opaque(&kept),
            "{name}: each removed channel is reported"
        );
        assert_eq!(r.output.model.clips.len(), kept.output.model.clips.len());
        for (a, b) in kept.output.model.clips.iter().zip(&r.output.model.clips) {
            assert_eq!(a.tracks, b.tracks, "{name}: `{}` bone tracks", a.name);
        }
        no_new_problems(&path, &r.out_path);
    }
}

/// `--skeleton-name`: the node above the bones takes the name (mixamo's `Armature`), or a new
/// node holding it is put above bones that hang from the scene (test.vrma); the file stays valid,
/// VRMA's bone references still hold, and doing it again changes nothing.
#[test]
fn the_skeleton_name_goes_to_the_armature_or_a_new_node() {
    let options = NormalizeOptions {
        rename: skelnorm::rename::RenameOptions {
            skeleton_name: Some("GeneralSkeleton".into()),
        },
        ..defaults()
    };
    let mut files = vec![common::root().join("fixtures/mixamo.glb")];
    files.extend(common::asset("vrm/test.vrma"));
    for path in files {
        let name = path.display();
        let r = run(&path, &options).unwrap();
        let nodes = |d: &Document| d.json()["nodes"].as_array().unwrap().len();
        let added = nodes(&r.output) - nodes(&r.input);
        let s = &r.output.model.skeletons[0];
        assert_eq!(s.name, "GeneralSkeleton", "{name}");
        let armature = *s.base_nodes.last().expect("a node above the bones");
        assert_eq!(
            r.output.json()["nodes"][armature as usize]["name"],
            "GeneralSkeleton"
        );
        let hung_from_scene = r.input.model.skeletons[0].base_nodes.is_empty();
        assert_eq!(added, hung_from_scene as usize, "{name}: nodes added");
        assert_eq!(
            r.input.json()["extensions"],
            r.output.json()["extensions"],
            "{name}: extensions"
        );
        let skin = check::skin(&r.input.model, &r.output.model, SkeletonId(0));
        assert!(skin.max_error <= 1e-5, "{name}: skin {}", skin.max_error);
        no_new_problems(&path, &r.out_path);
        let again = run(&r.out_path, &options).unwrap();
        assert_eq!(
            nodes(&again.output),
            nodes(&r.output),
            "{name}: a second run adds nothing"
        );
        assert!(again.report.skeletons[0]
            .rename
            .as_ref()
            .unwrap()
            .skeleton
            .is_none());
    }
}
