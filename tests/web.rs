//! The app behind `rulebook web`, without a browser: every rules file of the repository
//! loads, draws and plays from the page's side (each decision taken through the page of the
//! seat that must act, with a click's canonical text), and a seat's page never holds the
//! components of a hand it may not see. The browser itself: tests/browser.rs.

use rulebook::server::protocol::{Reply, Request};
use rulebook::web::{App, Setup};
use std::path::{Path, PathBuf};

fn rules_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rules_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rules") {
            out.push(p);
        }
    }
}

#[test]
fn every_rules_file_is_drawn_and_played_from_the_page() {
    let mut files = Vec::new();
    rules_files(Path::new("rules"), &mut files);
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let mut app = App::new(f.display().to_string());
        app.reload(text);
        let info = app.info();
        assert!(info.title.is_some(), "{}: {:?}", f.display(), info.problems);
        // Every seat human: the page takes every decision.
        let setup = Setup {
            players: info.min_players,
            variant: None,
            seed: 1,
            humans: vec![true; info.min_players as usize],
            agent: "random".into(),
        };
        app.start(setup).expect("starts");
        for step in 0..40 {
            let status = app.status();
            if status.over {
                break;
            }
            let Some(&seat) = status.humans_to_act.first() else {
                panic!("{}: nobody to act at step {step}", f.display());
            };
            let page = app.page(Some(seat), None).expect("a page");
            assert_eq!(page.scene.boards.len(), info.boards.len());
            for (b, spaces) in info.boards.iter().zip(&page.scene.boards) {
                assert_eq!(b.spaces.len(), spaces.len(), "{}", f.display());
            }
            for z in &page.scene.zones {
                if z.kind == "hand" && z.owner.is_some_and(|o| o != seat) && z.backs > 0 {
                    assert!(
                        z.cards.is_empty() || z.count > z.cards.len(),
                        "{}: {z:?}",
                        f.display()
                    );
                }
            }
            let view_hidden: usize = page
                .view
                .zones
                .iter()
                .map(|z| z.count - z.visible.len())
                .sum();
            let scene_backs: usize = page.scene.zones.iter().map(|z| z.backs).sum::<usize>()
                + page
                    .scene
                    .boards
                    .iter()
                    .flatten()
                    .flatten()
                    .filter(|t| t.kind == "back")
                    .count();
            assert_eq!(
                view_hidden,
                scene_backs,
                "{}: every hidden component is a back",
                f.display()
            );
            let action = page.legal.first().expect("a legal action").text.clone();
            let reply = app.request(
                Some(seat),
                Request::Apply {
                    action: action.clone(),
                },
            );
            assert!(
                !matches!(reply, Reply::Error { .. }),
                "{}: {action}: {reply:?}",
                f.display()
            );
        }
        // The log slider: the page after the first decision.
        if app.status().decisions > 1 {
            let past = app.page(Some(0), Some(1)).expect("a past page");
            assert_eq!((past.at, past.log.len(), past.legal.len()), (Some(1), 1, 0));
        }
    }
}

#[test]
fn agents_play_the_other_seats_and_undo_goes_back_to_the_human() {
    let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").expect("readable");
    let mut app = App::new("ttt.rules".into());
    app.reload(text);
    // Seat 1 is the page's, seat 2 random, by default.
    assert_eq!(app.info().setup.humans, vec![true, false]);
    let reply = app.request(
        Some(0),
        Request::Apply {
            action: "place cell=b2".into(),
        },
    );
    assert!(!matches!(reply, Reply::Error { .. }), "{reply:?}");
    assert_eq!(app.status().decisions, 2, "the agent answered");
    assert_eq!(app.status().humans_to_act, vec![0]);
    // Seat 1 may not play seat 2's decisions, nor see another seat's page as its own.
    let reply = app.request(
        Some(1),
        Request::Apply {
            action: "place cell=a1".into(),
        },
    );
    assert!(matches!(reply, Reply::Error { .. }), "{reply:?}");
    // The page shows the human's seat and the spectator's view, never the agent's.
    assert!(app.page(Some(0), None).is_ok());
    assert!(app.page(None, None).is_ok());
    let refused = app
        .page(Some(1), None)
        .expect_err("an agent's view is refused");
    assert!(refused.contains("played by an agent"), "{refused}");
    app.undo();
    assert_eq!(app.status().decisions, 0);
    // Saves load back.
    app.request(
        Some(0),
        Request::Apply {
            action: "place cell=a1".into(),
        },
    );
    let Reply::Save { data } = app.save() else {
        panic!("a save")
    };
    app.request(
        Some(0),
        Request::Apply {
            action: "place cell=c3".into(),
        },
    );
    app.load(data);
    assert_eq!(app.status().decisions, 2);
}

#[test]
fn rules_with_errors_show_their_problems_with_line_and_column() {
    let mut app = App::new("bad.rules".into());
    app.reload("game \"B\"\nplayers 2\naction pass() { end draw }\nflow { turn seat(0) { choose { pas } } }\n".into());
    let info = app.info();
    assert!(info.title.is_none());
    let p = info
        .problems
        .iter()
        .find(|p| p.severity == "error")
        .expect("an error");
    assert_eq!((p.line, p.column), (4, 32), "{p:?}");
    assert!(app.page(Some(0), None).is_err());
}
