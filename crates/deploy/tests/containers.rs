//! The container images, for real: `scripts/images.sh --offline` builds the images of
//! `server-prebuilt` and `server-hyper` (static binaries FROM scratch, nothing pulled) under a
//! tag prefix unique to this run; each image must carry the contract's settings (ADDR
//! 0.0.0.0:8080, port 8080, SIGTERM, a numeric non-root user, the variant and analogue
//! labels), answer a bad flag with exit status 2, listen on 0.0.0.0:8080 by default (checked
//! in a container of its own with no network), pass the conformance `core` group when run on
//! the host's network at 127.0.0.1, and exit 0 within 5 s of SIGTERM. Containers and images
//! are removed whatever happens (guards).
//!
//! Skipped, with the reason printed, where neither docker (with a daemon) nor podman is
//! installed or works, or where the engine cannot create a container at all (exit status
//! 125); a failure instead under `BENCH_REQUIRE_TOOLS=1` (`conformance::require`).

use std::process::Command;
use std::time::Duration;

use conformance::require;
use conformance::{Group, Options, Target};
use deploy::{Container, Engine, Images, note, root, unique};

const TEST: &str = "deploy::containers";
const VARIANTS: [&str; 2] = ["server-prebuilt", "server-hyper"];

#[test]
fn offline_images_conform_and_stop_on_sigterm() {
    if require::program("podman").is_none() && require::program("docker").is_none() {
        return require::missing(
            TEST,
            "podman (or docker)",
            "scripts/install-containers.sh installs podman and runc",
        );
    }
    let engine = match Engine::detect() {
        Ok(e) => e,
        Err(why) => return require::unusable(TEST, "a container engine", &why),
    };
    if std::env::consts::ARCH != "x86_64" {
        return require::unusable(
            TEST,
            "an x86_64 machine",
            "the offline images are built for x86_64-unknown-linux-gnu",
        );
    }
    let prefix = format!("{}-", unique("deploy-test-"));
    let images = Images::new(
        engine,
        VARIANTS.map(|v| format!("{prefix}{v}:latest")).to_vec(),
    );

    let mut build = Command::new(root().join("scripts/images.sh"));
    build.args([
        "--offline",
        "--only",
        &VARIANTS.join(","),
        "--tag-prefix",
        &prefix,
        "--engine",
        engine.program(),
    ]);
    note(TEST, &deploy::show(&build));
    let status = build.status().expect("run scripts/images.sh");
    assert!(status.success(), "scripts/images.sh failed: {status}");

    let manifest = manifest::Manifest::load_default().unwrap_or_else(|e| panic!("{e}"));
    for (variant, image) in VARIANTS.iter().zip(images.names()) {
        let entry = manifest
            .by_package(variant)
            .unwrap_or_else(|| panic!("{variant} is not in servers.toml"));
        check_config(engine, image, variant, &entry.analogue.join(", "));
        if let Err(why) = check_bad_flag(engine, image) {
            return require::unusable(TEST, engine.program(), &why);
        }
        check_default_address(engine, image, &prefix);
        let options = conformance::suite::options_for(entry, &[Group::Core])
            .unwrap_or_else(|e| panic!("{e}"));
        check_serves_and_stops(engine, image, &prefix, &options);
        let size = engine.image_size(image).unwrap_or_default();
        note(
            TEST,
            &format!(
                "{image} ({:.1} MB): core group passed, SIGTERM exit 0",
                size as f64 / 1e6
            ),
        );
    }
}

/// The image's configuration is the contract's: listen address, port, stop signal, user,
/// labels.
fn check_config(engine: Engine, image: &str, variant: &str, analogue: &str) {
    let config = engine.image_config(image).unwrap_or_else(|e| panic!("{e}"));
    let labels = &config["Labels"];
    assert_eq!(
        labels["reference-servers.variant"], variant,
        "{image}: {config}"
    );
    assert_eq!(
        labels["reference-servers.analogue"], analogue,
        "{image}: {config}"
    );
    let env = config["Env"].as_array().cloned().unwrap_or_default();
    assert!(
        env.iter().any(|e| e == "ADDR=0.0.0.0:8080"),
        "{image}: no ENV ADDR=0.0.0.0:8080: {config}"
    );
    assert!(
        config["ExposedPorts"].get("8080/tcp").is_some(),
        "{image}: 8080 not exposed: {config}"
    );
    assert_eq!(config["StopSignal"], "SIGTERM", "{image}: {config}");
    let user = config["User"].as_str().unwrap_or_default();
    let uid = user.split(':').next().unwrap_or_default();
    assert!(
        uid.parse::<u32>().is_ok_and(|u| u != 0),
        "{image}: the user must be a numeric non-root uid, is {user:?}"
    );
}

/// `IMAGE --bogus` exits 2 with one line on stderr. Exit status 125 is the engine failing to
/// create the container at all: then the machine cannot run containers (the skip reason).
fn check_bad_flag(engine: Engine, image: &str) -> Result<(), String> {
    let mut cmd = engine.command();
    cmd.args(["run", "--rm"])
        .args(engine.run_options("host"))
        .args([image, "--bogus"]);
    let out = cmd.output().expect("run the engine");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(125) {
        return Err(format!(
            "{} cannot create a container here: {}",
            engine.program(),
            err.trim()
        ));
    }
    assert_eq!(out.status.code(), Some(2), "{image} --bogus: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{image} --bogus: {err}");
    Ok(())
}

/// Without ADDR from outside, the image listens on 0.0.0.0:8080 (in a container with no
/// network of its own, so nothing on the host is bound).
fn check_default_address(engine: Engine, image: &str, prefix: &str) {
    let c = Container::run(engine, &format!("{prefix}default"), "none", image, &[], &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let addr = c
        .ready_addr(Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(addr.to_string(), "0.0.0.0:8080", "{image}");
}

/// On the host's network at 127.0.0.1 (port 0: the ready line says which), it passes `options`
/// and then exits 0 within 5 s of SIGTERM.
fn check_serves_and_stops(engine: Engine, image: &str, prefix: &str, options: &Options) {
    let c = Container::run(
        engine,
        &format!("{prefix}serve"),
        "host",
        image,
        &[("ADDR", "127.0.0.1:0")],
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let addr = c
        .ready_addr(Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(addr.ip().is_loopback(), "{image} listens on {addr}");
    let report = conformance::run(&Target::new(addr), options);
    report.print();
    assert!(
        report.all_passed(),
        "{image} does not conform: {}",
        report.failed_names().join(", ")
    );
    c.signal("TERM").unwrap_or_else(|e| panic!("{e}"));
    match c.wait_exit(Duration::from_secs(5)) {
        Ok(Some((code, took))) => {
            assert_eq!(code, 0, "{image} after SIGTERM; output: {}", c.logs());
            note(TEST, &format!("{image}: exit 0 {took:?} after SIGTERM"));
        }
        Ok(None) => panic!("{image} still runs 5 s after SIGTERM"),
        Err(e) => panic!("{e}"),
    }
}
