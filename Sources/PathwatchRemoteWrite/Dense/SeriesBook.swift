import PathwatchQueue

/// The intake's side of `DenseReport`: which number each series has, and which of them the
/// segment being appended to has defined, so that a record defines only what its segment has
/// not. Used on the intake thread only.
///
/// What the queue tells it after each append (`noteAppend`) is all it trusts: a series counts
/// as defined once a record defining it was accepted, or once a segment started with a
/// preamble that lists it. A record the queue refused, or one held in memory while the state
/// disk failed, defines nothing; the next record to name its series defines them again (twice
/// costs a few bytes, never a sample).
package struct SeriesBook: SeriesNumbering {
    private var numbers: [[TimeSeries.Label]: UInt64] = [:]
    private var labels: [UInt64: [TimeSeries.Label]] = [:]
    /// The segment (counted from this run's first) in which an accepted record last named
    /// each series.
    private var lastSent: [UInt64: Int] = [:]
    private var next: UInt64 = 0
    /// Series the append segment has defined (its preamble, or an accepted record).
    private var defined: Set<UInt64> = []
    /// The records made since the last `noteAppend`: every series each names, and those it defines.
    private var pending: [(named: [UInt64], fresh: [UInt64])] = []
    private var segment = 0
    /// The series an accepted record of the append segment last named, every one defined in
    /// the segment and noted as sent in it. A probe's next report nearly always names the same
    /// ones: such a record defines nothing and notes nothing new, so it is made without looking
    /// each of its series up twice (a set and a table, per series per report).
    private var lastNamed: [UInt64] = []

    package private(set) var forgettings = 0

    /// `series` (labels sorted, as sent) as a record's contents: defining those its segment has
    /// not, naming every one by number.
    mutating func contents(of series: [TimeSeries]) -> DenseReport.Contents {
        contents(numbered: series.map { (number(of: $0.labels), $0.value) })
    }

    package mutating func number(of labels: [TimeSeries.Label]) -> UInt64 {
        if let known = numbers[labels] { return known }
        let number = next
        next += 1
        numbers[labels] = number
        self.labels[number] = labels
        return number
    }

    package func knows(_ number: UInt64) -> Bool { labels[number] != nil }

    /// Samples of numbered series (`number(of:)`) as a record's contents: defining those its
    /// segment has not.
    mutating func contents(numbered samples: [(series: UInt64, value: Double)]) -> DenseReport.Contents {
        var contents = DenseReport.Contents()
        contents.samples = samples
        let named = samples.map(\.series)
        if !named.isEmpty && named == lastNamed {
            pending.append((named, []))
            return contents
        }
        var fresh: [UInt64] = []
        for number in named {
            if !defined.contains(number), let labels = labels[number] {
                contents.definitions.append(DenseReport.Definition(series: number, labels: labels))
                fresh.append(number)
            }
        }
        pending.append((named, fresh))
        return contents
    }

    /// What a fresh segment starts with: every series sent in this segment or the one before,
    /// and those the records being appended name, but those they define themselves.
    func preamble() -> [UInt8] {
        let current = listed()
        guard !current.isEmpty else { return [] }
        let definitions = current.sorted().compactMap { n in
            labels[n].map { DenseReport.Definition(series: n, labels: $0) }
        }
        return DenseReport.body(DenseReport.Contents(definitions: definitions), preamble: true)
    }

    private func listed() -> Set<UInt64> {
        var listed = Set(lastSent.filter { $0.value >= segment - 1 }.keys)
        for record in pending { listed.formUnion(record.named) }
        for record in pending { listed.subtract(record.fresh) }
        return listed
    }

    /// After an append of the records made since the last call: what their segment now defines.
    mutating func noteAppend(_ result: DurableQueue.AppendResult) {
        defer { pending = [] }
        if result.startedSegment {
            // The preamble listed what `preamble()` gave.
            defined = listed()
            segment += 1
            lastNamed = []
        }
        // Which records a refusal hit is not known: none of them defined anything, or was sent.
        if result.refused == 0 && result.accepted > 0 {
            for record in pending {
                defined.formUnion(record.fresh)
                guard record.named != lastNamed else { continue }
                for number in record.named { lastSent[number] = segment }
                // A number forgotten meanwhile is named but never defined: not a record to repeat.
                lastNamed = record.named.allSatisfy(defined.contains) ? record.named : []
            }
        }
        if result.startedSegment { forgetUnsent() }
    }

    /// An append failed (held in memory): its records may or may not reach the disk later, in
    /// another segment; nothing they defined counts.
    mutating func appendFailed() { pending = [] }

    /// Series no accepted record named in the last two segments (a reload's removed probe, a
    /// label value gone, a refused report's): forgotten, so the book and the preambles stay the
    /// size of what the agent sends. One that comes back gets a new number.
    private mutating func forgetUnsent() {
        let before = labels.count
        // What the new segment's preamble did not list: sent in neither of the two before it.
        for (number, series) in labels where (lastSent[number] ?? Int.min) < segment - 2 {
            labels[number] = nil
            numbers[series] = nil
            lastSent[number] = nil
            defined.remove(number)
        }
        if labels.count < before { forgettings += 1 }
    }
}
