//! `jointlimits`: learn joint rotation limits from motion capture and enforce them.

mod demo;
mod inspect;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "jointlimits",
    version,
    about = "Learn joint rotation limits from motion capture and enforce them"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the built-in humanoid's range-of-motion clip as BVH and inspect it (no input needed).
    Demo {
        /// Folder for the output files (created if missing).
        #[arg(long, default_value = "jointlimits-demo")]
        out: PathBuf,
    },
    /// Print a BVH clip's joint tree, frame count, frame rate and the range of every rotation
    /// channel in degrees.
    Inspect {
        /// The BVH file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { out } => demo::run(&out),
        Command::Inspect { file, json } => inspect::run(&file, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
