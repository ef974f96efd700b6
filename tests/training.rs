//! The training pipeline end to end: `wuzi-datagen` plays a few games in two shards,
//! `--stats` gives the concatenated shards the whole run's checksum, and `wuzi-train` fits a
//! network to them and writes weights that load, with their provenance.

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("wuzi-training-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn datagen(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wuzi-datagen"))
        .args(args)
        .output()
        .expect("wuzi-datagen runs");
    assert!(
        out.status.success(),
        "wuzi-datagen {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn checksum(stats: &str) -> &str {
    stats
        .split("checksum ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("a checksum")
}

#[test]
fn shards_merge_to_the_whole_run_and_train_a_network() {
    let d = dir();
    let p = |name: &str| d.join(name).to_string_lossy().into_owned();
    let common = [
        "--games",
        "6",
        "--seed",
        "3",
        "--nodes",
        "300",
        "--score-nodes",
        "900",
    ];
    let mut whole = common.to_vec();
    whole.extend(["--threads", "2", "--out"]);
    let all = p("all.wzd");
    whole.push(&all);
    datagen(&whole);
    let mut merged = Vec::new();
    for k in 0..3 {
        let part = p(&format!("part{k}.wzd"));
        let shard = format!("{k}/3");
        let mut args = common.to_vec();
        args.extend(["--shard", &shard, "--out", &part]);
        datagen(&args);
        merged.extend(std::fs::read(&part).unwrap());
    }
    let cat = p("merged.wzd");
    std::fs::write(&cat, merged).unwrap();
    let (a, b) = (datagen(&["--stats", &all]), datagen(&["--stats", &cat]));
    assert!(a.contains(": 6 games"), "{a}");
    assert_eq!(checksum(&a), checksum(&b), "{a}\n{b}");

    let net = p("net.wzf");
    let out = Command::new(env!("CARGO_BIN_EXE_wuzi-train"))
        .args(["--data", &all, "--out", &net, "--epochs", "2", "--val", "3"])
        .output()
        .expect("wuzi-train runs");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("epoch 2/2"), "{log}");
    let (_, provenance) = wuzi::nnue::model::Model::load(&mut std::fs::File::open(&net).unwrap())
        .expect("the weights load");
    assert!(provenance.starts_with("wuzi-train --data"), "{provenance}");
    assert!(provenance.contains("6 games"), "{provenance}");

    // Fine-tuning (`--init`) starts from those weights: with no epoch it writes them back
    // unchanged; with one it moves them, and the provenance keeps the first run's.
    let load = |f: &str| {
        wuzi::nnue::model::Model::load(&mut std::fs::File::open(f).unwrap()).expect("it loads")
    };
    let tuned = |epochs: &str, name: &str| {
        let f = p(name);
        let out = Command::new(env!("CARGO_BIN_EXE_wuzi-train"))
            .args(["--init", &net, "--data", &all, "--out", &f, "--val", "3"])
            .args(["--epochs", epochs, "--lr", "0.0002"])
            .output()
            .expect("wuzi-train runs");
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{log}");
        assert!(log.contains("before training: validation loss"), "{log}");
        (f, log)
    };
    let ((same, log), (moved, _)) = (tuned("0", "same.wzf"), tuned("1", "moved.wzf"));
    let (same, moved) = (load(&same), load(&moved));
    // With no epoch the network is measured as it stands: its loss at the end is the loss
    // before training, and the lines by rule and board size hold every held-out position.
    let after = |key: &str| {
        let at = log.find(key).unwrap_or_else(|| panic!("{key}: {log}")) + key.len();
        log[at..]
            .split(|c: char| c.is_whitespace() || c == ',' || c == ')')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        after("before training: validation loss "),
        after("validation loss: network "),
        "{log}"
    );
    let held: usize = after("training and ").parse().unwrap();
    let grouped: usize = log
        .lines()
        .filter(|l| l.contains(" positions, network "))
        .map(|l| {
            let before = l.split(" positions, network ").next().unwrap();
            before.rsplit(' ').next().unwrap().parse::<usize>().unwrap()
        })
        .sum();
    assert!(
        held > 0 && grouped == held,
        "{held} held out, {grouped} by group: {log}"
    );
    assert_eq!(same.0.w, load(&net).0.w);
    assert_ne!(moved.0.w, same.0.w);
    assert!(moved.1.starts_with("wuzi-train --init"), "{}", moved.1);
    assert!(moved.1.contains(&provenance), "{}", moved.1);
    let out = Command::new(env!("CARGO_BIN_EXE_wuzi-train"))
        .args([
            "--init",
            &net,
            "--data",
            &all,
            "--out",
            &p("x.wzf"),
            "--spatial",
        ])
        .output()
        .expect("wuzi-train runs");
    assert!(!out.status.success());

    // The spatial experiment trains on the same data, and its file loads.
    let spatial = p("spatial.wzf");
    let out = Command::new(env!("CARGO_BIN_EXE_wuzi-train"))
        .args([
            "--data", &all, "--out", &spatial, "--epochs", "1", "--val", "3",
        ])
        .arg("--spatial")
        .output()
        .expect("wuzi-train runs");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let mut file = std::fs::File::open(&spatial).unwrap();
    let (_, provenance) = wuzi::nnue::spatial::Spatial::load(&mut file).expect("it loads");
    assert!(provenance.contains("--spatial"), "{provenance}");
    // The engine evaluates with it where `WUZI_SPATIAL` names it: another search than the
    // embedded network's.
    let bench = |spatial: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_pbrain-wuzi"));
        cmd.args(["bench", "--set", "nnue=1"]);
        if let Some(f) = spatial {
            cmd.env("WUZI_SPATIAL", f);
        }
        let out = cmd.output().expect("bench runs");
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let sig = text.lines().find(|l| l.starts_with("Signature"));
        sig.expect("a signature").to_string()
    };
    assert_ne!(bench(Some(&spatial)), bench(None));
    let out = Command::new(env!("CARGO_BIN_EXE_wuzi-train"))
        .args(["--data", &all, "--out", &spatial, "--spatial", "--pair"])
        .output()
        .expect("wuzi-train runs");
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(&d);
}
