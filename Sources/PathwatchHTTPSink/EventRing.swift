/// The last change events, rendered once as Server-Sent Events frames, for `Last-Event-ID`
/// replay: a client that reconnects gets what it missed, as long as the ring still holds the
/// last event it saw. Bounded: the oldest frame goes when a new one comes past `capacity`.
struct EventRing {
    struct Entry {
        /// The ring's own order, for telling which frames a client has already been sent.
        var sequence: UInt64
        var id: String
        var frame: String
    }

    let capacity: Int
    private var entries: [Entry] = []
    private var head = 0
    private(set) var lastSequence: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    mutating func append(id: String, frame: String) {
        lastSequence += 1
        let entry = Entry(sequence: lastSequence, id: id, frame: frame)
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[head] = entry
            head = (head + 1) % capacity
        }
    }

    /// Oldest first.
    var ordered: [Entry] { Array(entries[head...] + entries[..<head]) }

    /// The entries after the one with `id`; nil when the ring no longer (or never) held it.
    func after(id: String) -> [Entry]? {
        let all = ordered
        guard let index = all.lastIndex(where: { $0.id == id }) else { return nil }
        return Array(all[(index + 1)...])
    }
}
