//! The `bai` command-line tool: replays transcripts through the protocol engine.

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("version") => {
            #[allow(clippy::print_stdout, reason = "a CLI prints its answer")]
            {
                println!("bai {}", bai::VERSION);
            }
        }
        _ => {
            #[allow(clippy::print_stderr, reason = "a CLI prints its usage")]
            {
                eprintln!("usage: bai version");
            }
            std::process::exit(2);
        }
    }
}
