mod conventions;
use conventions::{real_rigs, real_skeleton};
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::profile::Profile;
#[test]
fn dbg() {
    let want = std::env::var("RIG").unwrap_or_default();
    for (file, rig) in real_rigs() {
        if !file.starts_with(&want) { continue; }
        let mut sk = real_skeleton(&rig, &|n| n.to_string());
        let names: Vec<String> = sk.bones.iter().map(|b| b.name.clone()).collect();
        for (i, b) in sk.bones.iter_mut().enumerate() { b.name = format!("joint{i}"); }
        let p = Profile::humanoid();
        let map = map_skeleton(&sk, p, &MapOptions::default());
        for id in p.ids() {
            if let Some(m) = &map.entries[id.index()] {
                println!("{:24} <- {} ({})", p.bone(id).name, names[m.bone.index()], m.reason);
            }
        }
    }
}
#[test]
fn dbg_asset() {
    let Ok(f) = std::env::var("ASSET") else { return };
    let doc = skelnorm::gltf_io::read(std::path::Path::new(&f)).unwrap();
    let mut sk = doc.model.skeletons[0].clone();
    let names: Vec<String> = sk.bones.iter().map(|b| b.name.clone()).collect();
    for (i, b) in sk.bones.iter_mut().enumerate() { b.name = format!("joint{i}"); }
    let p = Profile::humanoid();
    let map = map_skeleton(&sk, p, &MapOptions { ignore_declared: true, ..MapOptions::default() });
    for id in p.ids() {
        if let Some(m) = &map.entries[id.index()] {
            println!("{:24} <- {} ({})", p.bone(id).name, names[m.bone.index()], m.reason);
        }
    }
    println!("{:?}", map.warnings);
}
