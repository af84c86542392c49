//! Whether memwall runs under instruction emulation, where every timing describes the emulator
//! and not the hardware. An aarch64 memwall under `qemu-aarch64` on an x86_64 machine reported a
//! 2.2 ns L1 and a core clock with confidence; it must say instead that it looks emulated, and
//! withhold what would read as facts about the host (cycles, advice).
//!
//! Two signs, either enough:
//! - `/proc/cpuinfo` describes another architecture than the one memwall runs as: a user-mode
//!   emulator passes the host's file through (Debian 12's qemu 7.2 does for aarch64 guests).
//! - A dependent chain of floating-point adds costs far more, add for add, than a dependent
//!   chain of integer adds. On real cores a double-precision add takes 2 to 6 cycles and an
//!   integer add one; an emulator like qemu's TCG translates the integer add into one host add
//!   but each floating-point add into a call to its software floating-point code. Both chains
//!   are timed by the same clock, so their ratio holds whatever the clock's rate or resolution.

use std::hint::black_box;
use std::sync::OnceLock;

use memwall_core::clock::Clock;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use memwall_core::clock::time_ns;

/// Float adds cost at most 6 integer adds on real cores; past this, the floats are emulated.
pub const FLOAT_ADD_LIMIT: f64 = 10.0;

/// What was seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Emulation {
    /// The architecture `/proc/cpuinfo` describes, when it is not the one memwall runs as.
    pub foreign_cpuinfo: Option<&'static str>,
    /// How many dependent integer adds one dependent float add costs; `None` where there is no
    /// integer chain for this architecture.
    pub float_add_ratio: Option<f64>,
}

impl Emulation {
    /// The warning, when anything looks emulated: one sentence, for the output and the report.
    pub fn warning(&self) -> Option<String> {
        let mut signs = Vec::new();
        if let Some(arch) = self.foreign_cpuinfo {
            signs.push(format!("/proc/cpuinfo describes {arch} while memwall runs as {} code", std::env::consts::ARCH));
        }
        if let Some(ratio) = self.float_add_ratio.filter(|r| *r > FLOAT_ADD_LIMIT) {
            signs.push(format!(
                "a dependent floating-point add costs {ratio:.0} integer adds, where real cores take 2 to 6"
            ));
        }
        (!signs.is_empty()).then(|| {
            format!(
                "this run looks emulated ({}): its timings describe the emulator, not this hardware, so cycles and advice are withheld",
                signs.join("; ")
            )
        })
    }

    /// One line for `memwall info`.
    pub fn describe(&self) -> String {
        let ratio = self.float_add_ratio.map_or(String::new(), |r| format!("a float add costs {r:.1} integer adds"));
        match self.warning() {
            Some(warning) => warning,
            None if ratio.is_empty() => "not checked on this architecture".to_string(),
            None => format!("no sign of it ({ratio}, as on real cores)"),
        }
    }
}

/// The architecture `cpuinfo` describes, when it is not `arch` (as `std::env::consts::ARCH`
/// spells it); `None` when it matches or cannot be told.
pub fn foreign_cpuinfo(cpuinfo: &str, arch: &str) -> Option<&'static str> {
    let has = |key: &str| cpuinfo.lines().any(|line| line.split(':').next().is_some_and(|k| k.trim() == key));
    let x86 = has("vendor_id") && has("flags");
    let arm = has("CPU implementer");
    match arch {
        "aarch64" | "arm" if x86 && !arm => Some("an x86 CPU"),
        "x86_64" | "x86" if arm && !x86 => Some("an Arm CPU"),
        _ => None,
    }
}

/// `steps` dependent double-precision adds. Float addition is not associative, so the compiler
/// must keep every add, in order, each waiting for the one before.
#[inline(never)]
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
fn float_chain(steps: u64) -> f64 {
    let step = black_box(1.0e-9_f64);
    let mut x = black_box(1.0_f64);
    for _ in 0..steps / 8 {
        x += step;
        x += step;
        x += step;
        x += step;
        x += step;
        x += step;
        x += step;
        x += step;
    }
    x
}

/// Float adds per integer add, each chain's fastest of seven runs (noise only adds time).
fn float_add_ratio(clock: &dyn Clock) -> Option<f64> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        // About 0.3 ms of integer adds natively; under emulation tens of ms in all.
        const STEPS: u64 = 1 << 18;
        let (mut int_ns, mut float_ns) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..7 {
            int_ns = int_ns.min(time_ns(clock, || crate::platform::add_chain(STEPS)).0);
            float_ns = float_ns.min(time_ns(clock, || black_box(float_chain(STEPS))).0);
        }
        (int_ns > 0.0 && float_ns.is_finite()).then(|| float_ns / int_ns)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = clock;
        None
    }
}

/// This process's verdict, measured once (a few ms natively).
pub fn detected() -> &'static Emulation {
    static DETECTED: OnceLock<Emulation> = OnceLock::new();
    DETECTED.get_or_init(|| {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Emulation {
            foreign_cpuinfo: foreign_cpuinfo(&cpuinfo, std::env::consts::ARCH),
            float_add_ratio: float_add_ratio(&crate::platform::NativeClock::new()),
        }
    })
}

/// The warning for reports and output, if any.
pub fn warning() -> Option<String> {
    detected().warning()
}

/// Says so on standard error before a measuring command starts, when the run looks emulated.
pub fn warn_if_emulated() {
    if let Some(warning) = warning() {
        eprintln!("memwall: warning: {warning}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str =
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2 avx2\n";
    const ARM: &str =
        "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";

    #[test]
    fn a_cpuinfo_of_another_architecture_is_noticed() {
        assert_eq!(foreign_cpuinfo(X86, "aarch64"), Some("an x86 CPU"));
        assert_eq!(foreign_cpuinfo(ARM, "x86_64"), Some("an Arm CPU"));
        assert_eq!(foreign_cpuinfo(X86, "x86_64"), None);
        assert_eq!(foreign_cpuinfo(ARM, "aarch64"), None);
        assert_eq!(foreign_cpuinfo("", "aarch64"), None, "an unreadable cpuinfo proves nothing");
    }

    #[test]
    fn either_sign_makes_a_warning_and_none_makes_none() {
        let real = Emulation { foreign_cpuinfo: None, float_add_ratio: Some(3.1) };
        assert_eq!(real.warning(), None);
        assert!(
            real.describe().starts_with("no sign of it (a float add costs 3.1 integer adds"),
            "{}",
            real.describe()
        );
        let slow_floats = Emulation { foreign_cpuinfo: None, float_add_ratio: Some(24.0) };
        let warning = slow_floats.warning().unwrap();
        assert!(warning.contains("looks emulated") && warning.contains("costs 24 integer adds"), "{warning}");
        let foreign = Emulation { foreign_cpuinfo: Some("an x86 CPU"), float_add_ratio: None };
        assert!(foreign.warning().unwrap().contains("/proc/cpuinfo describes an x86 CPU"));
        assert_eq!(
            Emulation { foreign_cpuinfo: None, float_add_ratio: None }.describe(),
            "not checked on this architecture"
        );
    }

    #[test]
    fn the_float_chain_adds_every_step() {
        // The same adds in the same order, rounded alike: the chain dropped none.
        let expected = (0..16).fold(1.0_f64, |x, _| x + 1.0e-9);
        assert_eq!(float_chain(16), expected);
        assert_ne!(float_chain(8), expected);
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn this_machine_is_not_emulated() {
        // The test machines run natively (a KVM guest is not emulated: its instructions run on
        // the CPU); if this ever fails under qemu, that is the detection working.
        let ratio = float_add_ratio(&crate::platform::NativeClock::new()).unwrap();
        assert!(ratio > 0.5 && ratio < FLOAT_ADD_LIMIT, "a float add costs {ratio} integer adds here");
    }
}
