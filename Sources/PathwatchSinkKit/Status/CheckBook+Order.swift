import Synchronization

/// The check book's document order: by each check's probe's place in the configuration (checks
/// of a probe no longer configured last), then by id.
///
/// The order changes only when a check is added or dropped or the probes' order is set, not
/// when a report changes a check's values: it is sorted once for each such change and kept
/// (`DocumentOrderCache`), where every document, rendering and scrape sorted it again. At a
/// thousand checks reported ten times a second that sort and the copies it made of each record
/// were a fifth of a `/metrics` rendering.
extension CheckBook {
    /// The checks in document order, each record copied once, into the result.
    package var orderedRecords: [CheckRecord] {
        var ordered: [CheckRecord] = []
        ordered.reserveCapacity(records.count)
        forEachInDocumentOrder { ordered.append($0) }
        return ordered
    }

    /// Visits the checks in document order where they are stored, copying none: for a format
    /// written as it goes, which needs no list of them.
    package func forEachInDocumentOrder(_ body: (CheckRecord) -> Void) {
        for id in orderedIDs { if let place = records.place(of: id) { body(records.record(at: place)) } }
    }

    /// The check ids in document order, as sorted at the last change of which checks exist
    /// (`membershipVersion`), or sorted now and kept.
    package var orderedIDs: [String] {
        if let ids = orderCache.ids(at: membershipVersion) { return ids }
        let ids = sortedIDs()
        orderCache.keep(ids, at: membershipVersion)
        return ids
    }

    /// Sort keys are taken once and sorted beside each check's position, and no check is looked
    /// up by its id: a sort of n checks makes n log n comparisons, and reaching into the
    /// records for each cost more than comparing.
    private func sortedIDs() -> [String] {
        var rank: [String: Int] = [:]
        for (position, probe) in probeOrder.enumerated() where rank[probe] == nil { rank[probe] = position }
        var keys: [(place: Int, id: String)] = []
        keys.reserveCapacity(records.count)
        var last: (probe: String, place: Int)?
        for record in records.values {
            // A probe's checks are many, its name the same string: hashed once per run of them.
            let place: Int
            if let last, last.probe == record.probe {
                place = last.place
            } else {
                place = rank[record.probe] ?? Int.max
                last = (record.probe, place)
            }
            keys.append((place, record.id))
        }
        return DocumentOrder.positions(of: keys).map { keys[$0].id }
    }
}

/// The last document order a book sorted, shared by the book's copies (each snapshot holds
/// one): kept with the membership version it was sorted at, which no other book state has
/// (versions are drawn from one count for the process), so a copy whose checks differ never
/// takes it. Behind a lock: two sinks may ask at once, each from its own snapshot.
package final class DocumentOrderCache: Sendable {
    private let kept = Mutex<(version: UInt64, ids: [String])?>(nil)
    /// Each probe's check ids by id (`CheckBook.records(ofProbe:)`), at one membership version.
    private let byProbe = Mutex<(version: UInt64, ids: [String: [String]])>((0, [:]))

    package init() {}

    func ids(at version: UInt64) -> [String]? {
        kept.withLock { kept in kept.flatMap { $0.version == version ? $0.ids : nil } }
    }

    func keep(_ ids: [String], at version: UInt64) {
        kept.withLock { $0 = (version, ids) }
    }

    func ids(of probe: String, at version: UInt64) -> [String]? {
        byProbe.withLock { $0.version == version ? $0.ids[probe] : nil }
    }

    /// Those kept at another version go: every probe's are sorted again at most once per version.
    func keep(_ ids: [String], of probe: String, at version: UInt64) {
        byProbe.withLock { kept in
            if kept.version != version { kept = (version, [:]) }
            kept.ids[probe] = ids
        }
    }
}
