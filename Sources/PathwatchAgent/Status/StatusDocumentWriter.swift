import PathwatchProbeKit

/// Writes the status document (SPEC §3) as JSON text straight from the check book: the bytes
/// `JSONSerializer` makes of `StatusDocument.build`'s tree, without building the tree. As a
/// tree, every value of every check was an enum case and every check an ordered object, all
/// walked again to print them: the largest part of what `once` and a status write cost per
/// check. Strings and numbers still go through `JSONSerializer`, so escaping and number forms
/// stay its own.
///
/// Where the tree would merge members (an object given one key twice keeps the first place and
/// the last value), the writer hands that object to the tree and the serializer instead, so the
/// text stays the tree's in every case.
struct StatusDocumentWriter {
    let pretty: Bool
    private(set) var out: [UInt8] = []
    /// Containers open around the next member: its indentation in the pretty form.
    private var depth = 0
    /// No member written yet in the innermost open container.
    private var first = true
    /// The last `since` written and its text: the checks of one sample share their time.
    private var lastSince: (time: WallTime, text: [UInt8])?
    /// Probe and plug-in names, and metric and label names with their colon, by place.
    private var repeated = RepeatedJSONStrings()
    private enum Slot {
        static let probe = 0
        static let plugin = 1
        static let names = 2
    }

    /// The document's own keys; `extra` members (`probes`, `sinks`) must not repeat them.
    static let coreKeys: Set<String> = ["schema", "agent", "time", "state", "path", "checks"]

    /// The document as JSON text: two-space indented when `pretty`, one line otherwise.
    static func render(
        identity: AgentIdentity, at time: WallTime, book: CheckBook, extra: [(String, JSONValue)] = [], pretty: Bool
    ) -> String {
        String(decoding: renderBytes(identity: identity, at: time, book: book, extra: extra, pretty: pretty), as: UTF8.self)
    }

    /// The document's UTF-8 bytes, for a caller that writes them as they are: making a String
    /// of them validates every byte again (a tenth of `once`'s work per check at 1,000 checks).
    static func renderBytes(
        identity: AgentIdentity, at time: WallTime, book: CheckBook, extra: [(String, JSONValue)] = [], pretty: Bool
    ) -> [UInt8] {
        guard Self.canWrite(extra) else {
            let document = StatusDocument.build(identity: identity, at: time, book: book, extra: extra).document
            return Array(JSONSerializer.serialize(document, pretty: pretty).utf8)
        }
        let records = book.orderedRecords
        var writer = StatusDocumentWriter(pretty: pretty)
        writer.out.reserveCapacity(512 + 640 * records.count)
        writer.document(identity: identity, at: time, book: book, records: records, extra: extra)
        return writer.out
    }

    /// Extra members the writer can place as the tree would: none repeats a key.
    private static func canWrite(_ extra: [(String, JSONValue)]) -> Bool {
        var keys = coreKeys
        return extra.allSatisfy { keys.insert($0.0).inserted }
    }

    private init(pretty: Bool) { self.pretty = pretty }

    private mutating func document(
        identity: AgentIdentity, at time: WallTime, book: CheckBook, records: [CheckRecord], extra: [(String, JSONValue)]
    ) {
        open(UInt8(ascii: "{"))
        key(Key.schema)
        JSONSerializer.writeNumber(Double(StatusDocument.schema), into: &out)
        key(Key.agent)
        open(UInt8(ascii: "{"))
        key(Key.name)
        JSONSerializer.writeString(identity.name, into: &out)
        key(Key.version)
        JSONSerializer.writeString(AgentIdentity.version, into: &out)
        key(Key.startedAt)
        timestamp(identity.startedAt)
        close(UInt8(ascii: "}"))
        key(Key.time)
        timestamp(time)
        key(Key.state)
        JSONSerializer.writeString(StatusDocument.overallState(records).name, into: &out)
        key(Key.path)
        value(book.path.json)
        key(Key.checks)
        if records.isEmpty {
            out += Self.emptyArray
        } else {
            open(UInt8(ascii: "["))
            for record in records { check(record) }
            close(UInt8(ascii: "]"))
        }
        for (name, member) in extra {
            key(name)
            value(member)
        }
        close(UInt8(ascii: "}"))
    }

    /// One element of `checks`, as `StatusDocument.checkJSON` builds it.
    private mutating func check(_ r: CheckRecord) {
        element()
        open(UInt8(ascii: "{"))
        if checkKeys?.depth != depth { checkKeys = (depth, CheckKey.allCases.map(checkKeyText)) }
        checkKey(.id)
        JSONSerializer.writeString(r.id, into: &out)
        checkKey(.probe)
        repeated.write(r.probe, slot: Slot.probe, into: &out, JSONSerializer.writeString)
        checkKey(.plugin)
        repeated.write(r.plugin, slot: Slot.plugin, into: &out, JSONSerializer.writeString)
        checkKey(.state)
        out += Self.quotedState[Int(r.state.rawValue)]
        checkKey(.since)
        since(r.since)
        checkKey(.message)
        JSONSerializer.writeString(r.message, into: &out)
        checkKey(.metrics)
        if r.metrics.isEmpty {
            out += Self.emptyObject
        } else if Self.namesAreDistinct(r.metrics) {
            open(UInt8(ascii: "{"))
            for (place, metric) in r.metrics.enumerated() {
                repeatedKey(metric.name, slot: Slot.names + place)
                JSONSerializer.writeNumber(metric.value, into: &out)
            }
            close(UInt8(ascii: "}"))
        } else {
            value(.object(JSONObject(r.metrics.map { ($0.name, JSONValue.number($0.value)) })))
        }
        if !r.labels.isEmpty {
            checkKey(.labels)
            if Self.namesAreDistinct(r.labels) {
                open(UInt8(ascii: "{"))
                for (place, label) in r.labels.enumerated() {
                    repeatedKey(label.name, slot: Slot.names + r.metrics.count + place)
                    JSONSerializer.writeString(label.value, into: &out)
                }
                close(UInt8(ascii: "}"))
            } else {
                value(.object(JSONObject(r.labels.map { ($0.name, JSONValue.string($0.value)) })))
            }
        }
        close(UInt8(ascii: "}"))
    }

    /// A check's members, always in this order and all of them but `labels` always there: each
    /// one's comma, line, indentation, name and colon are written once per document and copied.
    private enum CheckKey: Int, CaseIterable {
        case id, probe, plugin, state, since, message, metrics, labels

        var quoted: [UInt8] {
            switch self {
            case .id: Key.id
            case .probe: Key.probe
            case .plugin: Key.plugin
            case .state: Key.state
            case .since: Key.since
            case .message: Key.message
            case .metrics: Key.metrics
            case .labels: Key.labels
            }
        }
    }

    /// The check keys' texts at `depth`, as `key(_:)` writes them.
    private var checkKeys: (depth: Int, texts: [[UInt8]])?

    private func checkKeyText(_ key: CheckKey) -> [UInt8] {
        var text: [UInt8] = key == .id ? [] : [UInt8(ascii: ",")]
        if pretty { JSONSerializer.newline(&text, depth) }
        text += key.quoted
        if pretty { text.append(UInt8(ascii: " ")) }
        return text
    }

    private mutating func checkKey(_ key: CheckKey) {
        out += checkKeys!.texts[key.rawValue]
        first = false
    }

    /// True when no name repeats. A check has a handful of metrics and labels: comparing each
    /// with those before it is cheaper than hashing them. (Indices, not a lazy map of names: a
    /// key path is projected through the runtime, and cost more than the rest of the check.)
    private static func namesAreDistinct<Value>(_ items: [(name: String, value: Value)]) -> Bool {
        for i in items.indices {
            for j in 0..<i where items[j].name == items[i].name { return false }
        }
        return true
    }

    // MARK: Structure

    private mutating func open(_ bracket: UInt8) {
        out.append(bracket)
        depth += 1
        first = true
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if pretty { JSONSerializer.newline(&out, depth) }
        out.append(bracket)
        first = false
    }

    /// Starts an array element: the comma after the one before, and its line.
    private mutating func element() {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        if pretty { JSONSerializer.newline(&out, depth) }
    }

    /// Starts an object member named by a fixed key, already quoted with its colon.
    private mutating func key(_ quoted: [UInt8]) {
        element()
        out += quoted
        if pretty { out.append(UInt8(ascii: " ")) }
    }

    /// Starts an object member with a name from the data.
    private mutating func key(_ name: String) {
        element()
        JSONSerializer.writeString(name, into: &out)
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(UInt8(ascii: " ")) }
    }

    /// Starts an object member whose name the checks before may have had in this place: its
    /// comma, line and indentation are kept with it.
    private mutating func repeatedKey(_ name: String, slot: Int) {
        let (comma, pretty, depth) = (!first, self.pretty, self.depth)
        first = false
        repeated.write(name, slot: slot, layout: (comma ? 1 : 0) | depth << 1, into: &out) { name, out in
            if comma { out.append(UInt8(ascii: ",")) }
            if pretty { JSONSerializer.newline(&out, depth) }
            JSONSerializer.writeString(name, into: &out)
            out.append(UInt8(ascii: ":"))
            if pretty { out.append(UInt8(ascii: " ")) }
        }
    }

    /// A value already in tree form (the path, the probes and sinks arrays), at this depth.
    private mutating func value(_ value: JSONValue) {
        JSONSerializer.write(value, into: &out, pretty: pretty, indent: depth)
    }

    private mutating func timestamp(_ time: WallTime) {
        out.append(UInt8(ascii: "\""))
        time.writeRFC3339(into: &out)
        out.append(UInt8(ascii: "\""))
    }

    private mutating func since(_ time: WallTime) {
        if let last = lastSince, last.time == time {
            out += last.text
            return
        }
        let start = out.count
        timestamp(time)
        lastSince = (time, Array(out[start...]))
    }

    /// Each state's name as a JSON string, by raw value.
    private static let quotedState: [[UInt8]] = CheckState.allCases.sorted { $0.rawValue < $1.rawValue }.map { Array("\"\($0.name)\"".utf8) }
    private static let emptyArray = Array("[]".utf8)
    private static let emptyObject = Array("{}".utf8)

    /// The document's fixed keys, quoted and followed by their colon.
    private enum Key {
        static let schema = quoted("schema")
        static let agent = quoted("agent")
        static let name = quoted("name")
        static let version = quoted("version")
        static let startedAt = quoted("started_at")
        static let time = quoted("time")
        static let state = quoted("state")
        static let path = quoted("path")
        static let checks = quoted("checks")
        static let id = quoted("id")
        static let probe = quoted("probe")
        static let plugin = quoted("plugin")
        static let since = quoted("since")
        static let message = quoted("message")
        static let metrics = quoted("metrics")
        static let labels = quoted("labels")

        private static func quoted(_ key: String) -> [UInt8] { Array("\"\(key)\":".utf8) }
    }
}
