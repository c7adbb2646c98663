import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The frames that carry a call's result from a plug-in's child: the answer to a sample call,
/// and what the child's event loop got. Every other frame is JSON (it starts with `{`); these
/// are a binary record, since both ends are this same program:
///
///     kind          1 byte: 1 sampled, 2 event
///     observations  u32 count, then each: key, state (1 byte), message,
///                   u32 count of metrics (name, f64 value, a shape byte: 1 a counter,
///                   2 a help text follows, 4 a byte count of (name, value) labels follows),
///                   u32 count of (name, value) labels
///     error         1 byte: 0 none, 1 followed by a text
///     problems      u32 count of texts
///     refused       u32: observations refused whole (the problems also tell parts left out)
///
/// where a text is a u32 byte count and that many bytes of UTF-8, and numbers are
/// little-endian. A sample of a few hundred mounts is a few hundred observations; as JSON,
/// writing it in the child and reading it back in the agent cost as much as everything else the
/// agent did with those checks. The reader checks every length against what is left of the
/// frame, and every text for UTF-8: the child runs a plug-in, and is not trusted.
package enum ResultFrames {
    package enum Kind: UInt8 {
        case sampled = 1
        case event = 2
    }

    /// A frame as the agent's reader thread got it.
    package enum Incoming {
        /// A call's result; nil when the record is malformed (the child is then not trusted).
        case result(Kind, CallResult?)
        case other(JSONValue)
    }

    package static func encode(_ kind: Kind, _ result: CallResult) -> [UInt8] {
        var record = ResultRecordWriter(kind: kind, capacity: 16 + 256 * result.observations.count)
        for o in result.observations { record.observation(o) }
        return record.finished(error: result.error, problems: result.problems, refused: result.refused)
    }

    /// The observation count a finished record states (0 for anything shorter than its header).
    package static func observationCount(of record: [UInt8]) -> Int {
        guard record.count >= 5 else { return 0 }
        return (1...4).reversed().reduce(0) { $0 << 8 | Int(record[$1]) }
    }

    /// Reads a frame's body: a result record, or JSON (nil when it is neither).
    package static func decode(_ body: [UInt8]) -> Incoming? {
        guard let tag = body.first, let kind = Kind(rawValue: tag) else {
            return (try? JSONParser.parse(bytes: body)).map(Incoming.other)
        }
        let result = body.withUnsafeBytes { bytes -> CallResult? in
            var record = RecordReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[1...]))
            return try? record.result()
        }
        return .result(kind, result)
    }
}

/// Reads the fields of a result record, refusing any that runs past the end.
private struct RecordReader {
    struct Malformed: Error {}

    let bytes: UnsafeRawBufferPointer
    var offset = 0

    mutating func result() throws(Malformed) -> CallResult {
        // An observation takes at least 17 bytes (its lengths, counts and state): a count is
        // never believed beyond what the rest of the record could hold.
        let observationCount = try count(atLeast: 17)
        var observations: [Observation] = []
        observations.reserveCapacity(observationCount)
        for _ in 0..<observationCount { observations.append(try observation()) }
        let error: String?
        switch try byte() {
        case 0: error = nil
        case 1: error = try text()
        default: throw Malformed()
        }
        var problems: [String] = []
        for _ in 0..<(try count(atLeast: 4)) { problems.append(try text()) }
        let refused = Int(try u32())
        guard offset == bytes.count else { throw Malformed() }
        return CallResult(observations: observations, error: error, problems: problems, refused: refused)
    }

    private mutating func observation() throws(Malformed) -> Observation {
        let key = try text()
        guard let state = CheckState(rawValue: Int32(try byte())) else { throw Malformed() }
        let message = try text()
        let metricCount = try count(atLeast: 13)
        var metrics: [Metric] = []
        metrics.reserveCapacity(metricCount)
        for slot in 0..<metricCount { metrics.append(try metric(slot: slot)) }
        let labels = try labels(count: try count(atLeast: 8), namesFrom: metricCount)
        return Observation(key: key, state: state, message: message, metrics: metrics, labels: labels)
    }

    /// The labels of the observation before, which the next one shares when its are the same,
    /// and where their names were among the places of `names` (after that observation's metrics).
    private(set) var previousLabels: [(name: String, value: String)] = []
    private(set) var previousLabelNamesFrom = -1

    /// An observation's labels: the array of the observation before when every name and value in
    /// it is the same, so that a probe's checks that carry the same labels (a thousand endpoints
    /// of one server, each `endpoint` and `method` alike) share one array, not one each (96
    /// bytes a check, kept by the check book as long as the labels do not change). Label names
    /// come after the metrics' names in the places of `names` (from `namesFrom`).
    ///
    /// A name or value repeated in its place is the one the observation before had there when
    /// that observation had as many metrics and labels: the places tell sameness without a
    /// String compared (a compare at each label of each mount cost the disk probe 1.1k
    /// instructions a mount, where every mount's labels differ).
    private mutating func labels(count: Int, namesFrom first: Int) throws(Malformed) -> [(name: String, value: String)]
    {
        var labels: [(name: String, value: String)] = []
        var asBefore = count == previousLabels.count && first == previousLabelNamesFrom
        previousLabelNamesFrom = first
        for slot in 0..<count {
            let name = try repeatedText(slot: first + slot, value: false)
            let value = try repeatedText(slot: slot, value: true)
            if asBefore, name.repeated, value.repeated { continue }
            if asBefore {
                asBefore = false
                labels.reserveCapacity(count)
                labels.append(contentsOf: previousLabels[..<slot])
            }
            labels.append((name.text, value.text))
        }
        if asBefore { return previousLabels }
        previousLabels = labels
        return labels
    }

    /// A metric: its name and value, then its shape, help and labels (see `RecordMetric`).
    private mutating func metric(slot: Int) throws(Malformed) -> Metric {
        let name = try repeated(slot: slot, value: false)
        let value = try number()
        let shape = try byte()
        guard shape & ~7 == 0 else { throw Malformed() }
        var help: String?
        if shape & 2 != 0 {
            let text = try text()
            guard text.utf8.count <= CheckedMetric.helpBytes else { throw Malformed() }
            help = text
        }
        var labels: [(name: String, value: String)] = []
        if shape & 4 != 0 {
            let count = Int(try byte())
            guard count > 0, count <= MetricLabelRule.maximumCount else { throw Malformed() }
            labels.reserveCapacity(count)
            for _ in 0..<count { labels.append((try text(), try text())) }
            // The child is not trusted: its labels are held to the rule again.
            guard MetricLabelRule.problem(labels) == nil else { throw Malformed() }
        }
        return Metric(name, value, labels: labels, kind: shape & 1 != 0 ? .counter : .gauge, help: help)
    }

    /// Metric and label names by place in the observation before: a probe's observations
    /// mostly name the same metrics and labels in the same order.
    private(set) var names = RepeatedTexts()
    /// Label values likewise: a thousand endpoints of one server carry the same `endpoint` label,
    /// which then is one String that every check shares, not a copy of its own in each.
    private(set) var labelValues = RepeatedTexts()

    /// A metric or label name (or with `value`, a label's value): the String of the observation
    /// before when the bytes in its place are the same, so that a repeated text is compared, not
    /// validated and made again.
    private mutating func repeated(slot: Int, value: Bool) throws(Malformed) -> String {
        try repeatedText(slot: slot, value: value).text
    }

    /// The same, and whether it is the String already in its place.
    private mutating func repeatedText(slot: Int, value: Bool) throws(Malformed) -> (text: String, repeated: Bool) {
        let length = Int(try u32())
        let start = offset
        let utf8 = try take(length)
        let record = bytes
        return value
            ? try labelValues.text(slot: slot, start: start, utf8: utf8, in: record)
            : try names.text(slot: slot, start: start, utf8: utf8, in: record)
    }

    private mutating func take(_ size: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        guard size <= bytes.count - offset else { throw Malformed() }
        defer { offset += size }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])
    }

    private mutating func byte() throws(Malformed) -> UInt8 { try take(1)[0] }

    private mutating func u32() throws(Malformed) -> UInt32 {
        UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self))
    }

    /// A count of items of at least `size` bytes each.
    private mutating func count(atLeast size: Int) throws(Malformed) -> Int {
        let value = Int(try u32())
        guard value <= (bytes.count - offset) / size else { throw Malformed() }
        return value
    }

    private mutating func number() throws(Malformed) -> Double {
        Double(bitPattern: UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self)))
    }

    /// UTF-8 text. ASCII, nearly all of what probes report, needs no validation, and
    /// `String(validating:)` costs several times `String(decoding:)`.
    private mutating func text() throws(Malformed) -> String {
        try Self.string(try take(Int(try u32())))
    }

    static func string(_ raw: UnsafeRawBufferPointer) throws(Malformed) -> String {
        let utf8 = raw.assumingMemoryBound(to: UInt8.self)
        if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
        guard let text = String(validating: utf8, as: UTF8.self) else { throw Malformed() }
        return text
    }
}

/// The texts of the observation before, by place: where they came from in the record, and the
/// String made of them.
private struct RepeatedTexts {
    private var entries: [(start: Int, length: Int, text: String)] = []

    /// The String in `slot` when `utf8` (at `start` of `record`) holds the same bytes (and
    /// `repeated`), else a new one, kept in the slot for the next observation.
    mutating func text(slot: Int, start: Int, utf8: UnsafeRawBufferPointer, in record: UnsafeRawBufferPointer)
        throws(RecordReader.Malformed) -> (text: String, repeated: Bool)
    {
        let length = utf8.count
        if slot < entries.count, entries[slot].length == length,
            length == 0 || memcmp(record.baseAddress! + entries[slot].start, utf8.baseAddress!, length) == 0
        {
            return (entries[slot].text, true)
        }
        let text = try RecordReader.string(utf8)
        if slot < entries.count {
            entries[slot] = (start, length, text)
        } else if slot == entries.count {
            entries.append((start, length, text))
        }
        return (text, false)
    }
}
