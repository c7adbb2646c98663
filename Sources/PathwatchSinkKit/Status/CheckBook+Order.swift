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
    /// written as it goes, which needs no list of them. Each is reached by its place in the
    /// table, kept with the order, not found again by its id (a hash of each id at every
    /// document and scrape).
    package func forEachInDocumentOrder(_ body: (CheckRecord) -> Void) {
        for place in documentPlaces { body(records.record(at: place)) }
    }

    /// The check ids in document order.
    package var orderedIDs: [String] { documentPlaces.map { records.record(at: $0).id } }

    /// Each check's place in the table, in document order: as sorted at the last change of which
    /// checks exist (`membershipVersion`), or sorted now and kept. A place holds while the
    /// version does: only a check added or dropped moves one, and either changes the version.
    private var documentPlaces: [Int] {
        if let kept = orderCache.places(at: membershipVersion) { return kept }
        let places = sortedPlaces()
        orderCache.keep(places, at: membershipVersion)
        return places
    }

    /// Sort keys are taken once and sorted beside each check's place, and no check is looked
    /// up by its id: a sort of n checks makes n log n comparisons, and reaching into the
    /// records for each cost more than comparing.
    private func sortedPlaces() -> [Int] {
        var rank: [String: Int] = [:]
        for (position, probe) in probeOrder.enumerated() where rank[probe] == nil { rank[probe] = position }
        var keys: [(place: Int, id: String)] = []
        keys.reserveCapacity(records.count)
        var last: (probe: String, place: Int)?
        // In the table's order: a key's position is its check's place in the table.
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
        return DocumentOrder.positions(of: keys)
    }
}

/// The last document order a book sorted, shared by the book's copies (each snapshot holds
/// one): kept with the membership version it was sorted at, which no other book state has
/// (versions are drawn from one count for the process), so a copy whose checks differ never
/// takes it. Behind a lock: two sinks may ask at once, each from its own snapshot.
package final class DocumentOrderCache: Sendable {
    /// Each check's place in the book's table, in document order.
    private let kept = Mutex<(version: UInt64, places: [Int])?>(nil)
    /// Each probe's checks' places, by id (`CheckBook.records(ofProbe:)`), at one membership
    /// version.
    private let byProbe = Mutex<(version: UInt64, places: [String: [Int]])>((0, [:]))

    package init() {}

    func places(at version: UInt64) -> [Int]? {
        kept.withLock { kept in kept.flatMap { $0.version == version ? $0.places : nil } }
    }

    func keep(_ places: [Int], at version: UInt64) {
        kept.withLock { $0 = (version, places) }
    }

    func places(of probe: String, at version: UInt64) -> [Int]? {
        byProbe.withLock { $0.version == version ? $0.places[probe] : nil }
    }

    /// Those kept at another version go: every probe's are sorted again at most once per version.
    func keep(_ places: [Int], of probe: String, at version: UInt64) {
        byProbe.withLock { kept in
            if kept.version != version { kept = (version, [:]) }
            kept.places[probe] = places
        }
    }
}
