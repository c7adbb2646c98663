import PathwatchJSON
import PathwatchProbeKit

/// Writes the status document (contract §3) as JSON text straight from a snapshot's typed values:
/// the one writer of the document, for the file sink, `/status`, `once`, `/events` and webhook
/// payloads. Strings and numbers go through `JSONSerializer`, so escaping and number forms are
/// the project's one serializer's; the pretty form is its two-space layout.
///
/// A check's members are always the same and in one order, and the checks of one probe repeat
/// their probe, plug-in, metric and label names in the same places: those are written once per
/// document and copied after (`RepeatedJSONStrings`), which is most of what writing a check costs.
package struct StatusDocumentWriter {
    package typealias Key = StatusDocumentKey

    package let pretty: Bool
    package private(set) var out: [UInt8] = []
    /// Containers open around the next member: its indentation in the pretty form.
    private var depth = 0
    /// No member written yet in the innermost open container.
    private var first = true
    /// The last `since` written and its text: the checks of one sample share their time.
    private var lastSince: (time: WallTime, text: [UInt8])?
    /// Probe and plug-in names, and metric and label names with their colon, by place.
    private var repeated = RepeatedJSONStrings()
    /// The checks a silence covers (`StatusSnapshot.silenced`).
    private var silenced: Set<String> = []
    private enum Slot {
        static let probe = 0
        static let plugin = 1
        static let names = 2
    }

    /// The document's UTF-8 bytes: two-space indented when `pretty`, one line otherwise.
    /// The checks are visited where the snapshot holds them, not listed: a list of 10,000
    /// records (1.6 MB) would stay with the snapshot as long as a sink keeps it.
    package static func bytes(of snapshot: StatusSnapshot, pretty: Bool) -> [UInt8] {
        var writer = StatusDocumentWriter(pretty: pretty)
        writer.silenced = snapshot.silenced
        writer.out.reserveCapacity(512 + 640 * snapshot.checkCount + 320 * (snapshot.probes?.count ?? 0))
        writer.document(snapshot)
        return writer.out
    }

    /// The same document handed to `put` in pieces as it is written, each once it holds `piece`
    /// bytes or more (ending with the check, probe or sink that filled it), the last with a
    /// newline after the document when asked: a writer to a file need not hold the whole
    /// document, some 5 MB at 10,000 checks, made afresh at every write.
    package static func write(
        _ snapshot: StatusSnapshot, pretty: Bool, inPiecesOf piece: Int, endingWithNewline: Bool = false,
        to put: (_ piece: [UInt8]) -> Void
    ) {
        withoutActuallyEscaping(put) { put in
            var writer = StatusDocumentWriter(pretty: pretty)
            writer.silenced = snapshot.silenced
            writer.spill = (piece, put)
            writer.out.reserveCapacity(piece + piece / 4)
            writer.document(snapshot)
            if endingWithNewline { writer.out.append(UInt8(ascii: "\n")) }
            put(writer.out)
        }
    }

    private init(pretty: Bool) { self.pretty = pretty }

    /// Where a writer in pieces hands each piece, and how large a piece grows first.
    private var spill: (size: Int, put: ([UInt8]) -> Void)?

    /// Hands what is written so far on, once it is a piece: called between elements.
    private mutating func spillIfFull() {
        guard let spill, out.count >= spill.size else { return }
        spill.put(out)
        out.removeAll(keepingCapacity: true)
    }

    private mutating func document(_ snapshot: StatusSnapshot) {
        open(UInt8(ascii: "{"))
        key(Key.schema)
        JSONSerializer.writeNumber(Double(StatusDocument.schema), into: &out)
        key(Key.agent)
        open(UInt8(ascii: "{"))
        string(Key.name, snapshot.identity.name)
        string(Key.version, AgentIdentity.version)
        key(Key.startedAt)
        timestamp(snapshot.identity.startedAt)
        close(UInt8(ascii: "}"))
        key(Key.time)
        timestamp(snapshot.time)
        string(Key.state, snapshot.state.name)
        key(Key.path)
        path(snapshot.path)
        key(Key.checks)
        if snapshot.checkCount == 0 {
            out += Literal.emptyArray
        } else {
            open(UInt8(ascii: "["))
            snapshot.forEachCheckInDocumentOrder { record in
                element()
                check(record)
                spillIfFull()
            }
            close(UInt8(ascii: "]"))
        }
        if let probes = snapshot.probes {
            key(Key.probes)
            array(probes) { $0.probe($1) }
        }
        if let sinks = snapshot.sinks {
            key(Key.sinks)
            array(sinks) { $0.sink($1) }
        }
        close(UInt8(ascii: "}"))
    }

    private mutating func path(_ path: PathSummary) {
        open(UInt8(ascii: "{"))
        string(Key.status, path.status.rawValue)
        string(Key.type, path.type)
        optionalString(Key.interface, path.interface)
        key(Key.expensive)
        out += path.expensive ? Literal.true : Literal.false
        string(Key.description, path.description)
        if let internet = path.internet { string(Key.internet, internet.rawValue) }
        close(UInt8(ascii: "}"))
    }

    /// One element of `checks`.
    private mutating func check(_ r: CheckRecord) {
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
        let metrics = r.distinctMetrics
        if metrics.isEmpty {
            out += Literal.emptyObject
        } else {
            open(UInt8(ascii: "{"))
            for (place, metric) in metrics.enumerated() {
                repeatedKey(metric.seriesName, slot: Slot.names + place)
                JSONSerializer.writeNumber(metric.value, into: &out)
            }
            close(UInt8(ascii: "}"))
        }
        if !r.labels.isEmpty {
            checkKey(.labels)
            open(UInt8(ascii: "{"))
            for (place, label) in r.distinctLabels.enumerated() {
                repeatedKey(label.name, slot: Slot.names + metrics.count + place)
                JSONSerializer.writeString(label.value, into: &out)
            }
            close(UInt8(ascii: "}"))
        }
        if silenced.contains(r.id) {
            checkKey(.silenced)
            out += Literal.true
        }
        close(UInt8(ascii: "}"))
    }

    /// One element of `probes`: every member always there, null when there is nothing to say.
    private mutating func probe(_ p: ProbeStatus) {
        open(UInt8(ascii: "{"))
        string(Key.id, p.id)
        string(Key.plugin, p.plugin)
        string(Key.isolation, p.isolation.rawValue)
        string(Key.state, p.health.state.rawValue)
        number(Key.restarts, Double(p.health.restarts))
        optionalNumber(Key.pid, p.health.pid.map(Double.init))
        key(Key.lastSampleAt)
        if let at = p.lastSampleAt { timestamp(at) } else { out += Literal.null }
        optionalNumber(Key.lastDurationMs, p.lastDurationMilliseconds)
        optionalString(Key.lastError, p.health.lastError)
        close(UInt8(ascii: "}"))
    }

    /// One element of `sinks`; `rejected` only for sinks that can be refused.
    private mutating func sink(_ s: SinkStatus) {
        open(UInt8(ascii: "{"))
        string(Key.type, s.type)
        string(Key.target, s.target)
        number(Key.queued, Double(s.queued))
        number(Key.dropped, Double(s.dropped))
        if let rejected = s.rejected { number(Key.rejected, Double(rejected)) }
        key(Key.lastDelivery)
        if let at = s.lastDelivery { timestamp(at) } else { out += Literal.null }
        optionalString(Key.lastError, s.lastError)
        close(UInt8(ascii: "}"))
    }

    /// A check's members, always in this order and all of them but `labels` and `silenced` always there: each
    /// one's comma, line, indentation, name and colon are written once per document and copied.
    private enum CheckKey: Int, CaseIterable {
        case id, probe, plugin, state, since, message, metrics, labels, silenced

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
            case .silenced: Key.silenced
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

    /// `items` as an array, each element written by `write` after its comma and line.
    private mutating func array<Item>(_ items: [Item], _ write: (inout Self, Item) -> Void) {
        guard !items.isEmpty else {
            out += Literal.emptyArray
            return
        }
        open(UInt8(ascii: "["))
        for item in items {
            element()
            write(&self, item)
            spillIfFull()
        }
        close(UInt8(ascii: "]"))
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

    private mutating func string(_ quoted: [UInt8], _ value: String) {
        key(quoted)
        JSONSerializer.writeString(value, into: &out)
    }

    private mutating func optionalString(_ quoted: [UInt8], _ value: String?) {
        key(quoted)
        if let value { JSONSerializer.writeString(value, into: &out) } else { out += Literal.null }
    }

    private mutating func number(_ quoted: [UInt8], _ value: Double) {
        key(quoted)
        JSONSerializer.writeNumber(value, into: &out)
    }

    private mutating func optionalNumber(_ quoted: [UInt8], _ value: Double?) {
        key(quoted)
        if let value { JSONSerializer.writeNumber(value, into: &out) } else { out += Literal.null }
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
    private static let quotedState: [[UInt8]] = CheckState.allCases.sorted { $0.rawValue < $1.rawValue }.map {
        Array("\"\($0.name)\"".utf8)
    }

    private enum Literal {
        static let null = Array("null".utf8)
        static let `true` = Array("true".utf8)
        static let `false` = Array("false".utf8)
        static let emptyArray = Array("[]".utf8)
        static let emptyObject = Array("{}".utf8)
    }
}
