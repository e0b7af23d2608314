//! The module map of ARCHITECTURE.md holds: data flows one way (text, syntax tree, IR,
//! running game), and each module refers only to the modules below it. A reference is any
//! `crate::<module>` or `super::` path outside a comment; the test lists every edge that breaks
//! the order; and its codemap names every file of `src/`, one line each, and no file that is gone.

use std::collections::BTreeMap;
use std::path::Path;

/// Each top-level module of `src/` with the modules it may use.
const ALLOWED: &[(&str, &[&str])] = &[
    ("source", &[]),
    ("ops", &[]),
    ("syntax", &["source", "ops"]),
    ("fmt", &["syntax", "source", "ops"]),
    ("ir", &["source", "ops"]),
    ("lir", &["ir", "source", "ops"]),
    ("check", &["syntax", "ir", "source", "ops"]),
    ("engine", &["lir", "ir", "source", "ops"]),
    ("reference", &["engine", "lir", "ir", "source", "ops"]),
    ("agents", &["engine", "ir", "source", "ops"]),
    (
        "run",
        &["agents", "engine", "check", "syntax", "ir", "source", "ops"],
    ),
    (
        "server",
        &["run", "agents", "engine", "check", "ir", "source", "ops"],
    ),
    ("report", &["run", "source"]),
    (
        "web",
        &[
            "server", "run", "agents", "engine", "check", "ir", "source", "ops",
        ],
    ),
    ("render", &[]),
    ("lsp", &["fmt", "check", "syntax", "ir", "source", "ops"]),
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None` for lib.rs and main.rs).
fn module_of(path: &Path) -> Option<String> {
    let rel = path.strip_prefix("src").ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

#[test]
fn modules_only_refer_to_the_modules_below_them() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut all = vec![];
    files(Path::new("src"), &mut all);
    all.sort();
    let mut broken = vec![];
    let mut unknown = vec![];
    for f in &all {
        let Some(m) = module_of(f) else { continue };
        if m == "cli" {
            continue; // the command line sits on top of everything
        }
        let Some(ok) = allowed.get(m.as_str()) else {
            unknown.push(m.clone());
            continue;
        };
        let text = std::fs::read_to_string(f).expect("readable");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let mut rest = code;
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let used: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if used != m && !ok.contains(&used.as_str()) {
                    broken.push(format!("{}:{}: {m} uses {used}", f.display(), n + 1));
                }
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(
        unknown.is_empty(),
        "modules missing from the map in this test and ARCHITECTURE.md: {unknown:?}"
    );
    assert!(
        broken.is_empty(),
        "references against the module order:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_codemap_names_every_file_and_every_module() {
    let doc = std::fs::read_to_string("ARCHITECTURE.md").expect("ARCHITECTURE.md");
    let start = doc.find("## Codemap").expect("a codemap section");
    let end = doc[start..].find("\n## ").map_or(doc.len(), |i| start + i);
    let map = &doc[start..end];
    for (m, _) in ALLOWED {
        assert!(
            map.contains(&format!("**`{m}`**")),
            "the codemap of ARCHITECTURE.md has no entry for the module {m}"
        );
    }
    let mut all = vec![];
    files(Path::new("src"), &mut all);
    let mut missing = vec![];
    for f in &all {
        let name = f.to_string_lossy().replace('\\', "/");
        if !map.contains(&format!("`{name}`")) {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "files of src/ the codemap of ARCHITECTURE.md does not name (one line each):\n{}",
        missing.join("\n")
    );
    // And no line names a file that is gone.
    let mut gone = vec![];
    for part in map.split('`').skip(1).step_by(2) {
        if part.starts_with("src/") && part.ends_with(".rs") && !Path::new(part).exists() {
            gone.push(part.to_string());
        }
    }
    assert!(
        gone.is_empty(),
        "the codemap names files that do not exist: {gone:?}"
    );
}

/// The most lines a file of `src/` may have (issue 36: a file one can read whole).
const MAX_FILE_LINES: usize = 800;

#[test]
fn no_file_of_src_is_longer_than_the_limit() {
    let mut all = vec![];
    files(Path::new("src"), &mut all);
    let mut long: Vec<String> = all
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f)
                .expect("readable")
                .lines()
                .count();
            (n > MAX_FILE_LINES).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "files of src/ over {MAX_FILE_LINES} lines (split them by what they do):\n{}",
        long.join("\n")
    );
}
