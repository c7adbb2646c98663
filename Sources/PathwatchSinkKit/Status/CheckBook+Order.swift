/// The check book's document order: by each check's probe's place in the configuration (checks
/// of a probe no longer configured last), then by id.
extension CheckBook {
    /// The checks in document order. Sort keys are taken once and sorted beside each check's
    /// position, and no check is looked up by its id: a sort of n checks makes n log n
    /// comparisons, and reaching into the records for each cost more than comparing.
    package var orderedRecords: [CheckRecord] {
        var rank: [String: Int] = [:]
        for (position, probe) in probeOrder.enumerated() where rank[probe] == nil { rank[probe] = position }
        let all = Array(records.values)
        var keys: [(place: Int, id: String)] = []
        keys.reserveCapacity(all.count)
        var last: (probe: String, place: Int)?
        for record in all {
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
        return DocumentOrder.positions(of: keys).map { all[$0] }
    }
}
