/// What a reload does to the sinks: a sink whose entry is unchanged is kept as it runs (an http
/// sink keeps its listener, its last report and its streams; a queue keeps delivering), so a
/// reload that adds a file or webhook fragment leaves the live agent answering as before. Only
/// the sinks whose entries changed or went away are closed, each handing what it holds to the
/// new sink of the same kind that takes its claim (a file, a queue folder, an address).
package struct SinkReplacement {
    /// The sinks of the new configuration, in its order: kept ones and new ones.
    package var sinks: [any Sink]
    /// The new sinks, to start once the replaced ones are closed.
    package var added: [any Sink]
    /// The running sinks that go, each with the new sink that takes over what it held.
    package var replaced: [(sink: any Sink, successor: (any Sink)?)]

    /// `make` builds a new sink for an entry no running sink has. With `reuse` false (the
    /// setting sinks are made in changed), every sink is made anew and every running one goes.
    package init(
        running: [(config: SinkConfig, sink: any Sink)], next: [SinkConfig], reuse: Bool, make: (SinkConfig) -> any Sink
    ) {
        var available = running
        var kept: Set<ObjectIdentifier> = []
        var added: [any Sink] = []
        sinks = next.map { config in
            if reuse, let index = available.firstIndex(where: { $0.config == config }) {
                let sink = available.remove(at: index).sink
                kept.insert(ObjectIdentifier(sink))
                return sink
            }
            let sink = make(config)
            added.append(sink)
            return sink
        }
        self.added = added
        let newSinks = sinks
        replaced = available.map { old in
            let successor = Self.successor(of: old.config, among: next).map { newSinks[$0] }
            return (old.sink, successor.flatMap { kept.contains(ObjectIdentifier($0)) ? nil : $0 })
        }
    }

    /// The index of the new sink of the same kind that holds what `old` held (its exclusive
    /// claim: a file, a queue folder, an address); a sink that holds nothing alone has none.
    private static func successor(of old: SinkConfig, among new: [SinkConfig]) -> Int? {
        guard let claim = old.settings.exclusiveClaim else { return nil }
        return new.firstIndex { $0.type == old.type && $0.settings.exclusiveClaim?.key == claim.key }
    }
}
