//! `flow`: set up flows through flowmgr by hand and watch them.
//!
//! ```text
//! flow create STAGE… [buffer=N] [priority=P] [rate=R] [replicas=2]   (syntax: flow_client::text)
//! flow list
//! flow stats ID | flow pause ID | flow resume ID | flow destroy ID
//! ```
//!
//! A system whose manifest gives the shell no `flowmgr` capability builds
//! it without one (`shell_flow` unset, see build.rs); `flow` then says so.

use alloc::string::String;

use crate::Failed;

const USAGE: &str = "flow create STAGE… [buffer=N] [priority=P] [rate=R] [replicas=2] | flow list | flow stats|pause|resume|destroy ID\n  stages: pattern:COUNT:SEED udp:PORT blocks:FIRST:COUNT file:PATH[:OFFSET[:LENGTH]] | encrypt|decrypt:cbc|ctr:KEYHEX[:IVHEX[:any|device|software]] crc32c | null check:SEED blocks:FIRST:COUNT file:PATH[:OFFSET[:LENGTH]] tcp:A.B.C.D:PORT udpto:A.B.C.D:PORT";

/// `flow ...`.
pub fn flow(args: &[String]) -> Result<(), Failed> {
    let Some((op, rest)) = args.split_first() else {
        return Err(Failed::usage(USAGE));
    };
    #[cfg(shell_flow)]
    {
        served::flow(op, rest)
    }
    #[cfg(not(shell_flow))]
    {
        let _ = (op, rest);
        conflux_userlib::println!("flow: this system gives the shell no flowmgr capability (`flowmgr` in [tasks.shell.caps] of its manifest)");
        Err(Failed::Reported)
    }
}

#[cfg(shell_flow)]
mod served {
    use super::USAGE;
    use crate::{config, Failed};
    use alloc::string::String;
    use conflux_userlib::println;
    use flow_client::text::{self, Lines};
    use flow_client::{FlowId, FlowState, Flows};

    fn id(rest: &[String]) -> Result<FlowId, Failed> {
        match rest {
            [w] => w.parse().map(FlowId).map_err(|_| Failed::usage(USAGE)),
            _ => Err(Failed::usage(USAGE)),
        }
    }

    fn report(what: &str, r: Result<(), flow_client::Error>) -> Result<(), Failed> {
        r.map_err(|e| {
            println!("flow {what}: {e}");
            Failed::Reported
        })
    }

    pub fn flow(op: &str, rest: &[String]) -> Result<(), Failed> {
        let flows = Flows::new(config::caps::FLOWMGR);
        match op {
            "create" => {
                let req = text::request(rest).map_err(|e| {
                    println!("flow create: {e}");
                    Failed::Reported
                })?;
                let id = flows.create(&req).map_err(|e| {
                    println!("flow create: {e}");
                    Failed::Reported
                })?;
                println!("flow {}: created", id.0);
                Ok(())
            }
            "list" if rest.is_empty() => {
                let mut out = [(FlowId(0), FlowState::Running); 16];
                let n = flows.list(&mut out).map_err(|e| {
                    println!("flow list: {e}");
                    Failed::Reported
                })?;
                if n == 0 {
                    println!("no flows");
                }
                for (id, state) in &out[..n.min(out.len())] {
                    println!("flow {}: {state}", id.0);
                }
                Ok(())
            }
            "stats" => {
                let id = id(rest)?;
                match flows.stats(id) {
                    Ok(s) => {
                        println!("flow {}: {}", id.0, Lines(&s));
                        Ok(())
                    }
                    Err(e) => report("stats", Err(e)),
                }
            }
            "pause" => report("pause", flows.pause(id(rest)?)),
            "resume" => report("resume", flows.resume(id(rest)?)),
            "destroy" => {
                let id = id(rest)?;
                report("destroy", flows.destroy(id))?;
                println!("flow {}: destroyed", id.0);
                Ok(())
            }
            _ => Err(Failed::usage(USAGE)),
        }
    }
}
