//! Writes the sample files with a pyramid and a schema block that the e2e suite opens, the
//! crafted hostile ones it must refuse (`fixtures::CRAFTED`), and the shapes of a slow validation
//! (`fixtures::SLOW_SHAPES`):
//! `cargo run -p rete-explore --example fixtures -- OUT_DIR`.

#[path = "../tests/fixtures/mod.rs"]
mod fixtures;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: fixtures OUT_DIR")?;
    for name in fixtures::NAMES {
        let path = fixtures::ensure(std::path::Path::new(&dir), name)?;
        println!("{}", path.display());
    }
    for path in fixtures::write_crafted(std::path::Path::new(&dir))? {
        println!("{}", path.display());
    }
    println!(
        "{}",
        fixtures::write_slow_shapes(std::path::Path::new(&dir))?.display()
    );
    Ok(())
}
