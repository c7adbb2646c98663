/// An observation's labels, parted: those published with the check, and the reserved
/// `pathwatch.*` ones, which are path facts (what the check book derives the path from).
package enum ObservationLabels {
    /// An observation's labels as published, and the reserved `pathwatch.*` ones as path facts.
    package static func split(_ labels: [(name: String, value: String)]) -> (
        published: [(name: String, value: String)], facts: [String: String]
    ) {
        // Most observations carry no path fact: their labels are published as they came, the
        // same storage, not a copy of it.
        guard labels.contains(where: { $0.name.hasPrefix("pathwatch.") }) else { return (labels, [:]) }
        var published: [(name: String, value: String)] = []
        published.reserveCapacity(labels.count)
        var facts: [String: String] = [:]
        for label in labels {
            guard label.name.hasPrefix("pathwatch.") else {
                published.append(label)
                continue
            }
            // A link's observation carries five path facts: room for them at the first, rather
            // than growing (and rehashing) the table at the second and the third.
            if facts.isEmpty { facts.reserveCapacity(labels.count) }
            facts[label.name] = label.value
        }
        return (published, facts)
    }
}
