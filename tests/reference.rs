//! The language reference cannot rot: every complete game in a ```rules block of
//! grammar/README.md (one with `players` and `flow`) checks without errors.

#[test]
fn complete_examples_in_the_reference_check() {
    let text = std::fs::read_to_string("grammar/README.md").expect("the reference");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (i, block) in text.split("```rules").skip(1).enumerate() {
        let code = block.split("```").next().unwrap_or_default();
        let complete =
            code.lines().any(|l| l.trim_start().starts_with("players ")) && code.contains("flow {");
        if !complete {
            continue;
        }
        checked += 1;
        let loaded = rulebook::load(&format!("reference example {}", i + 1), code);
        if loaded.diagnostics.has_errors() {
            let msgs: Vec<String> = loaded
                .diagnostics
                .problems
                .iter()
                .map(|p| rulebook::render::plain(p))
                .collect();
            failures.push(msgs.join("\n"));
        }
    }
    assert!(checked >= 1, "no complete example found");
    assert!(
        failures.is_empty(),
        "{checked} complete examples, failing:\n{}",
        failures.join("\n")
    );
}
