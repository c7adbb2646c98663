/// The easy handles a probe's round shares across its targets: created as transfers need them,
/// so never more than the probe's concurrency, and freed when the round is over (`releaseIdle`).
/// 5,000 targets at a concurrency of 64 use 64 handles, not 5,000.
///
/// Why not keep them between rounds: each handle holds libcurl's buffers and state (about
/// 10 KiB), and an agent runs all its reachability probes in one child: ten probes of 1,000
/// endpoints kept 640 idle handles for a minute between rounds (freeing them took the child from
/// 45 to 34 MiB with the heap trim beside it: `bench/endpoints`). Making up to 64 handles again
/// once a round costs microseconds; the connections, which the multi handle keeps, are not lost
/// with them.
final class TransferPool {
    private var idle: [Transfer] = []

    /// Handles alive now, idle or in use.
    private(set) var live = 0
    /// The most handles alive at once.
    private(set) var mostLive = 0

    func take() throws -> Transfer {
        if let transfer = idle.popLast() { return transfer }
        let transfer = try Transfer()
        live += 1
        mostLive = max(mostLive, live)
        return transfer
    }

    func give(_ transfer: Transfer) { idle.append(transfer) }

    /// Frees the idle handles: the round is over.
    func releaseIdle() {
        live -= idle.count
        idle = []
    }
}
