/// The easy handles a probe reuses across targets and samples: created as transfers need them,
/// so never more than the probe's concurrency. 5,000 targets at a concurrency of 64 hold 64
/// handles, not 5,000 (each handle with its buffers is about 10 KiB).
final class TransferPool {
    private var idle: [Transfer] = []

    /// Handles created so far.
    private(set) var created = 0

    func take() throws -> Transfer {
        if let transfer = idle.popLast() { return transfer }
        let transfer = try Transfer()
        created += 1
        return transfer
    }

    func give(_ transfer: Transfer) { idle.append(transfer) }
}
