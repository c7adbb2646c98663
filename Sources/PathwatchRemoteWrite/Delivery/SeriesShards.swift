/// `max_parallel` above 1: the reports of one request cut by series into up to that many
/// requests, which go out together. A series lands in the same share in every report of the run
/// (by a hash of its labels), and the next run starts only once every share of this one is
/// accepted, so each series still reaches the receiver in time order, whatever order the shares
/// arrive in: what Prometheus's own remote write does with its shards. Every share stays within
/// `max_samples_per_send`: reports join the run only while each share fits.
struct SeriesShards {
    struct Share {
        /// Which of the `parallel` shares: the same series, the same slot.
        let slot: Int
        let body: [UInt8]
        let samples: Int
    }

    /// How many of the run's reports, from its first, the shares carry (at least one).
    let reports: Int
    /// The shares that carry samples, by slot: one or none when every series fell in one slot
    /// (or the reports carry none).
    let shares: [Share]

    /// Nil when there is nothing to cut: `parallel` is 1, or the first report has no series keys
    /// (a record queued by a release before 0.2.0).
    init?(_ run: [ReportEntries], parallel: Int, cap: Int) {
        guard parallel > 1 else { return nil }
        var bodies = [[UInt8]](repeating: [], count: parallel)
        var counts = [Int](repeating: 0, count: parallel)
        var taken = 0
        for report in run {
            guard case .separate(let bytes, let ends, let keys) = report, keys.count == ends.count else { break }
            var added = [Int](repeating: 0, count: parallel)
            for key in keys { added[Self.slot(of: key, parallel)] += 1 }
            if taken > 0, zip(counts, added).contains(where: { $0 + $1 > cap }) { break }
            for (index, key) in keys.enumerated() {
                bodies[Self.slot(of: key, parallel)] += bytes[ReportEntries.start(of: index, ends)..<ends[index]]
            }
            for slot in 0..<parallel { counts[slot] += added[slot] }
            taken += 1
        }
        let shares = (0..<parallel).filter { counts[$0] > 0 }.map {
            Share(slot: $0, body: bodies[$0], samples: counts[$0])
        }
        guard taken > 0 else { return nil }
        reports = taken
        self.shares = shares
    }

    private static func slot(of key: UInt64, _ parallel: Int) -> Int { Int(key % UInt64(parallel)) }
}
