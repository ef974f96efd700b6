//! The network evaluation: training data made by self-play (`data`, the format and its
//! streaming reader; `selfplay`, the games), the inputs read from the board's line patterns
//! (`features`), the network in floating point with its trainer's optimiser (`model`), and the
//! engine's integer network with its file format and inference (`network`). The accumulators
//! live with the line patterns (`board::lines`), which update them as the codes change.

use std::sync::OnceLock;

use model::Model;
use network::Network;

pub mod conv;
pub mod data;
pub mod features;
pub mod model;
pub mod network;
pub mod selfplay;
pub mod spatial;

/// SplitMix64: the deterministic random numbers of self-play, initial weights and shuffles.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// The network the engine ships, as `wuzi-train --quantise` wrote it (its provenance in the
/// header; README "Training the network" gives the commands that remake it).
static EMBEDDED: &[u8] = include_bytes!("../../nets/wuzi.wzq");

static NETWORK: OnceLock<Option<Network>> = OnceLock::new();

static SPATIAL: OnceLock<Option<spatial::Spatial>> = OnceLock::new();

/// An experiment: the float spatial network (`spatial`) named by the environment variable
/// `WUZI_SPATIAL`; the engine evaluates with its quantised form (`conv()`), and orders moves
/// by its policy with `INFO wuzi_nnue_policy 1`.
pub fn spatial() -> Option<&'static spatial::Spatial> {
    SPATIAL
        .get_or_init(|| {
            let path = std::env::var_os("WUZI_SPATIAL")?;
            std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| spatial::Spatial::load(&mut b.as_slice()).map_err(|e| e.to_string()))
                .map(|(m, _)| m)
                .map_err(|e| log::warn!("no spatial network: {}: {e}", path.to_string_lossy()))
                .ok()
        })
        .as_ref()
}

static CONV: OnceLock<Option<conv::ConvNet>> = OnceLock::new();

/// The spatial network of `WUZI_SPATIAL` (`spatial()`) quantised for the engine, which keeps
/// its state up to date move by move (`conv`): with `INFO wuzi_nnue 1` it evaluates in place
/// of the count network.
pub fn conv() -> Option<&'static conv::ConvNet> {
    CONV.get_or_init(|| spatial().map(|m| conv::ConvNet::quantise(m, "")))
        .as_ref()
}

/// The network `INFO wuzi_nnue 1` evaluates with: the file named by the environment variable
/// `WUZI_NNUE` (quantised, or a float one from `wuzi-train`, quantised as it loads) for
/// experiments, otherwise the embedded one. `None` if the file named is refused (a warning
/// says why) or the embedded one were broken; the classical evaluation then stays.
pub fn network() -> Option<&'static Network> {
    NETWORK
        .get_or_init(|| {
            let loaded = match std::env::var_os("WUZI_NNUE") {
                Some(path) => std::fs::read(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| {
                        if bytes.starts_with(b"WUZINNF") {
                            Model::load(&mut bytes.as_slice())
                                .map(|(m, text)| Network::quantise(&m, &text))
                                .map_err(|e| e.to_string())
                        } else {
                            Network::load(&bytes)
                        }
                    })
                    .map_err(|e| format!("{}: {e}", path.to_string_lossy())),
                None => Network::load(EMBEDDED).map_err(|e| format!("embedded network: {e}")),
            };
            loaded.map_err(|e| log::warn!("no network: {e}")).ok()
        })
        .as_ref()
}
