/// The check book's document order: by each check's probe's place in the configuration (checks
/// of a probe no longer configured last), then by id.
extension CheckBook {
    /// The checks in document order. Sort keys are taken once and sorted beside each check's
    /// position, and no check is looked up by its id: a sort of n checks makes n log n
    /// comparisons, and reaching into the records for each cost more than comparing. Each
    /// record is copied once, into the result: a record holds a dozen counted references, and
    /// copying all of them into a list first as well took a third of a `/metrics` rendering.
    package var orderedRecords: [CheckRecord] {
        var rank: [String: Int] = [:]
        for (position, probe) in probeOrder.enumerated() where rank[probe] == nil { rank[probe] = position }
        var places: [Dictionary<String, CheckRecord>.Index] = []
        places.reserveCapacity(records.count)
        var keys: [(place: Int, id: String)] = []
        keys.reserveCapacity(records.count)
        var last: (probe: String, place: Int)?
        for index in records.indices {
            places.append(index)
            let probe = records.values[index].probe
            // A probe's checks are many, its name the same string: hashed once per run of them.
            let place: Int
            if let last, last.probe == probe {
                place = last.place
            } else {
                place = rank[probe] ?? Int.max
                last = (probe, place)
            }
            keys.append((place, records.values[index].id))
        }
        return DocumentOrder.positions(of: keys).map { records.values[places[$0]] }
    }
}
