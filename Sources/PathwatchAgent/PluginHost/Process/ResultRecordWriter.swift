import PathwatchProbeKit

/// Writes a result record (the layout is in `ResultFrames`): the kind and a count of
/// observations the writer fills in when the record is finished, each observation as it comes,
/// then the error and the problems.
struct ResultRecordWriter {
    private var bytes: [UInt8] = []
    private(set) var observationCount = 0

    init(kind: ResultFrames.Kind, capacity: Int = 256) {
        bytes.reserveCapacity(max(capacity, 16))
        bytes.append(kind.rawValue)
        count(0)
    }

    mutating func observation(_ o: Observation) {
        fields(key: o.key, state: o.state, message: o.message, metrics: o.metrics, labels: o.labels) { $0.text($1) }
    }

    /// A checked observation written from the plug-in's own bytes, with no Swift values made
    /// on the way (in a plug-in's child, where the record is all that becomes of it).
    mutating func observation(_ o: CheckedObservation) {
        fields(key: o.key, state: o.state, message: o.message, metrics: o.metrics, labels: o.labels) { $0.text($1) }
    }

    private mutating func fields<Text>(
        key: String, state: CheckState, message: Text, metrics: [(name: Text, value: Double)],
        labels: [(name: Text, value: Text)], text: (inout ResultRecordWriter, Text) -> Void
    ) {
        self.text(key)
        byte(UInt8(truncatingIfNeeded: state.rawValue))
        text(&self, message)
        count(metrics.count)
        for metric in metrics {
            text(&self, metric.name)
            number(metric.value)
        }
        count(labels.count)
        for label in labels {
            text(&self, label.name)
            text(&self, label.value)
        }
        observationCount += 1
    }

    /// The finished record: the observation count filled in, the error and the problems after.
    consuming func finished(error: String?, problems: [String]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: observationCount).littleEndian) { count in
            for i in 0..<4 { bytes[1 + i] = count[i] }
        }
        if let error {
            byte(1)
            text(error)
        } else {
            byte(0)
        }
        count(problems.count)
        for problem in problems { text(problem) }
        return bytes
    }

    private mutating func byte(_ value: UInt8) { bytes.append(value) }

    private mutating func count(_ value: Int) { append(UInt32(truncatingIfNeeded: value).littleEndian) }

    private mutating func number(_ value: Double) { append(value.bitPattern.littleEndian) }

    /// A number's bytes as they lie in memory, appended as typed bytes in one copy (a raw
    /// buffer is appended byte by byte).
    private mutating func append<Number: FixedWidthInteger>(_ value: Number) {
        withUnsafeBytes(of: value) { raw in raw.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) } }
    }

    /// Copied from the string's UTF-8 storage in one piece: appending its UTF8View, sixteen
    /// times per disk check, took a third longer.
    private mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func text(_ value: PluginText) {
        let marker = value.truncated ? ObservationCollector.truncationMarker : ""
        count(value.bytes.count + marker.utf8.count)
        // As typed bytes, appended with one copy; a raw buffer is appended byte by byte.
        value.bytes.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) }
        if value.truncated { bytes.append(contentsOf: marker.utf8) }
    }
}
