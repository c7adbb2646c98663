/// What one target's echoes add up to, as `ping`'s summary reports it.
struct PingStatistics: Equatable {
    var sent: Int
    var received: Int
    var minimum: Double?
    var average: Double?
    var maximum: Double?
    /// Mean absolute difference between consecutive round trips (in sequence order), the way
    /// RFC 3550 reads packet delay variation; nil with fewer than two replies.
    var jitter: Double?

    var lossPercent: Double { sent == 0 ? 100 : Double(sent - received) / Double(sent) * 100 }

    /// `rtts` by sequence number, in milliseconds.
    init(sent: Int, rtts: [UInt16: Double]) {
        self.sent = sent
        received = rtts.count
        let ordered = rtts.sorted { $0.key < $1.key }.map(\.value)
        guard !ordered.isEmpty else { return }
        minimum = ordered.min()
        maximum = ordered.max()
        average = ordered.reduce(0, +) / Double(ordered.count)
        if ordered.count >= 2 {
            jitter = zip(ordered.dropFirst(), ordered).map { abs($0 - $1) }.reduce(0, +) / Double(ordered.count - 1)
        }
    }
}
