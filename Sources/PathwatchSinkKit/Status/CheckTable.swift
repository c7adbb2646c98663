/// The check book's records: stored side by side in one array, found by id through an index of
/// places.
///
/// Every snapshot holds the book as it was, so the first report after a snapshot copies the
/// records. Kept in a `Dictionary`, that copy was the whole hash table: at 10,000 checks 16,384
/// buckets of an id and a record each, 2.9 MB, and a live snapshot or two held such a copy each
/// (the agent's largest allocation, bench/endpoints). Here a copy is the records alone (1.6 MB at
/// 10,000), and the index, which changes only when a check comes or goes, stays shared.
///
/// The order of `values` is the table's own, not the document's (`CheckBook+Order` says that):
/// removing a check moves the last record into its place.
package struct CheckTable: Sendable {
    private var slots: [CheckRecord] = []
    private var places: [String: Int] = [:]

    package init() {}

    package var count: Int { slots.count }
    package var isEmpty: Bool { slots.isEmpty }

    /// The records, in the table's order.
    package var values: [CheckRecord] { slots }

    /// The ids, in the table's order.
    package var keys: [String] { slots.map(\.id) }

    /// How many checks the index holds before it grows (what the tests read of its room).
    package var indexRoom: Int { places.capacity }

    /// Where the check `id` is, for `update(at:)` and `record(at:)`.
    package func place(of id: String) -> Int? { places[id] }

    package func record(at place: Int) -> CheckRecord { slots[place] }

    /// Changes a record where it is stored, without a copy of it.
    package mutating func update<Result>(at place: Int, _ body: (inout CheckRecord) -> Result) -> Result {
        body(&slots[place])
    }

    package subscript(id: String) -> CheckRecord? {
        guard let place = places[id] else { return nil }
        return slots[place]
    }

    /// Adds `record` under its id, or replaces the record of that id.
    package mutating func store(_ record: CheckRecord) {
        if let place = places[record.id] {
            slots[place] = record
        } else {
            places[record.id] = slots.count
            slots.append(record)
        }
    }

    /// Stores `record` as `store` does and returns its place, with one look-up in the index
    /// where `store` takes two: for a check `place(of:)` just said is not there.
    package mutating func add(_ record: CheckRecord) -> Int {
        let place = slots.count
        if let held = places.updateValue(place, forKey: record.id) {
            places[record.id] = held
            slots[held] = record
            return held
        }
        slots.append(record)
        return place
    }

    /// Removes the check `id`; the last record takes its place.
    package mutating func remove(_ id: String) {
        guard let place = places.removeValue(forKey: id) else { return }
        let last = slots.count - 1
        if place != last {
            slots.swapAt(place, last)
            places[slots[place].id] = place
        }
        slots.removeLast()
    }

    /// Room for `added` more checks, so that a first sample's checks do not grow the table step
    /// by step; the records grown at least twofold, so that a thousand probes' first samples do
    /// not move them a thousand times. Nothing when the table has the room already. For checks
    /// not yet in the table only: a copy made for a snapshot is exactly as long as the records,
    /// so asking for checks it holds already would double it.
    ///
    /// The index is asked for what is needed alone: its buckets come in powers of two, so it
    /// grows twofold by itself, and asked for the records' doubled room it kept twice the
    /// buckets its checks need for as long as they lived (at 10,000 checks 786 KB where 393 KB
    /// hold them), where the records' spare room goes at the first copy for a snapshot.
    package mutating func reserveRoom(forAdding added: Int) {
        let needed = slots.count + added
        if needed > places.capacity { places.reserveCapacity(needed) }
        guard needed > slots.capacity else { return }
        slots.reserveCapacity(max(needed, slots.capacity * 2))
    }
}
