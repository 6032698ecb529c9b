use skelnorm::*;
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    let dir = gltf_io::Resources::Folder(std::path::Path::new(&p).parent().unwrap().to_path_buf());
    let prof = profile::Profile::humanoid();
    let opts = pipeline::NormalizeOptions::default();
    for _ in 0..40 {
        let mut d = gltf_io::read_bytes(&bytes, p.as_ref(), &dir).unwrap();
        pipeline::normalize(&mut d.model, prof, &opts).unwrap();
        std::hint::black_box(d.to_parts(None).unwrap());
    }
}
