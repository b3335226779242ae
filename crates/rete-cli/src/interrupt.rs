//! Ctrl-C and SIGTERM, one handler for the whole process (the OS allows one). While some work
//! listens ([`listen`]: a build, an upstream conversion, a label scan, the server) a signal
//! sets its cancel flag and wakes [`wait`]; the work stops cleanly and removes its temporary
//! files. With nobody listening (a query running, output being printed) the process ends at
//! once with status 130, as without a handler.

use anyhow::Result;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, OnceLock};

struct State {
    flag: Arc<AtomicBool>,
    listeners: AtomicUsize,
    waiters: Mutex<Vec<Sender<()>>>,
}

static STATE: OnceLock<State> = OnceLock::new();

fn state() -> Result<&'static State> {
    let mut installed = Ok(());
    let s = STATE.get_or_init(|| {
        installed = ctrlc::set_handler(|| {
            let Some(s) = STATE.get() else { return };
            if s.listeners.load(Ordering::SeqCst) == 0 {
                std::process::exit(130);
            }
            s.flag.store(true, Ordering::SeqCst);
            if let Ok(w) = s.waiters.lock() {
                for tx in w.iter() {
                    let _ = tx.send(());
                }
            }
        });
        State {
            flag: Arc::default(),
            listeners: AtomicUsize::new(0),
            waiters: Mutex::default(),
        }
    });
    installed?;
    Ok(s)
}

/// While the guard lives, a signal sets the flag it holds instead of ending the process.
pub struct Listening(&'static State);

impl Listening {
    /// The cancel flag to poll.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.flag.clone()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.listeners.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Starts listening for Ctrl-C and SIGTERM.
pub fn listen() -> Result<Listening> {
    let s = state()?;
    s.listeners.fetch_add(1, Ordering::SeqCst);
    Ok(Listening(s))
}

/// Blocks until Ctrl-C or SIGTERM.
pub fn wait() -> Result<()> {
    let l = listen()?;
    if l.0.flag.load(Ordering::SeqCst) {
        return Ok(());
    }
    let (tx, rx) = channel();
    l.0.waiters
        .lock()
        .map_err(|_| anyhow::anyhow!("signal state poisoned"))?
        .push(tx);
    let _ = rx.recv();
    Ok(())
}
